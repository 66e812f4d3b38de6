/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * replay_main - main() of a fuzz harness in builds without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on each file named (a folder: on each file
 * in it), so the regression inputs of tests/fuzz/regress run in every
 * build, plain and sanitized. Prints "N inputs" and exits 0; a bug shows
 * as a crash or a sanitizer report.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        if (k == 0)
            break;
        n += k;
    }
    fclose(f);
    /* An exact-size copy: a read past the input's end is caught. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact == NULL) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d != NULL && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                    continue;
                char p[8192];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                if (run_file(p) == 0)
                    count++;
                else
                    bad++;
            }
            if (d != NULL)
                closedir(d);
        } else if (run_file(argv[i]) == 0) {
            count++;
        } else {
            bad++;
        }
    }
    printf("%d inputs\n", count);
    return bad ? 1 : 0;
}
