/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * winent-options: the library's table of options (winent_options) as
 * lines a shell script reads, one per option of winent-stream, in
 * --help's order:
 *
 *     --NAME <TAB> KIND <TAB> VALUES
 *
 * KIND is flag (no value); words (VALUES: the words the option takes,
 * every spelling, separated by blanks); file (VALUES: the ending of the
 * file's name, ".zst", or nothing); value (a value of the user's own, a
 * number or a list; VALUES empty). An option of a grammar with words
 * beside it (--range LO:HI or auto) is words. tools/mkcompletion.sh makes
 * the bash completion from these lines, so an option or a word added to
 * the table is completed without editing the script. --measure's words
 * are the library's measure names (winent_measure_name), renyi with an
 * order (renyi:2), so a measure added there is completed too. Not
 * installed.
 */
#include "winent.h"

#include <stdio.h>
#include <string.h>

/* The row's words ("auto|raw|zst|tif,tiff") blank-separated. */
static void print_words(const char *words)
{
    for (const char *w = words; *w; w++)
        putchar(*w == '|' || *w == ',' ? ' ' : *w);
}

/* Every measure's name, blank-separated; Renyi's with an order. */
static void print_measures(void)
{
    for (int m = 0; m < WINENT_MEASURE_COUNT; m++)
        printf("%s%s%s", m ? " " : "", winent_measure_name((winent_measure)m),
               m == WINENT_MEASURE_RENYI ? ":2" : "");
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fputs("usage: winent-options (prints the table of options, one line each)\n", stderr);
        return 2;
    }
    int count = 0;
    const winent_option *t = winent_options(&count);
    for (int i = 0; i < count; i++) {
        const winent_option *r = &t[i];
        int seen = 0; /* a second row of a CLI word (--window's list) adds nothing */
        for (int k = 0; k < i && r->cli; k++)
            seen |= t[k].cli && strcmp(t[k].cli, r->cli) == 0;
        if (r->cli == NULL || seen)
            continue;
        printf("--%s\t", r->cli);
        if (r->metavar == NULL) {
            fputs("flag\t", stdout);
        } else if (strcmp(r->cli, "measure") == 0) {
            fputs("words\t", stdout);
            print_measures();
        } else if (r->words != NULL) {
            fputs("words\t", stdout);
            print_words(r->words);
        } else if (strncmp(r->metavar, "FILE", 4) == 0) {
            printf("file\t%s", r->metavar + 4);
        } else {
            fputs("value\t", stdout);
        }
        putchar('\n');
    }
    return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}
