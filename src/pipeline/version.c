/* SPDX-License-Identifier: BSD-3-Clause */
/* --version: this build's engines and libraries (winent.h). */
#include <stdio.h>
#include <string.h>

#include "devices.h"
#include "tiles/libversions.h"
#include "winent.h"

/* The OpenMP specification a compiler's _OPENMP date stands for. */
static const char *openmp_spec(long date)
{
    static const struct {
        long date;
        const char *spec;
    } specs[] = {{202111, "5.2"}, {202011, "5.1"}, {201811, "5.0"}, {201511, "4.5"},
                 {201307, "4.0"}, {201107, "3.1"}, {200805, "3.0"}, {200505, "2.5"}};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (date >= specs[i].date)
            return specs[i].spec;
    return "?";
}

/* "700,800,900" (nvcc's list) as "sm_70 sm_80 sm_90". */
static void print_archs(FILE *out, const char *list)
{
    const char *s = list;
    int first = 1;
    while (*s) {
        long v = 0;
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++, digits++)
            v = v * 10 + (*s - '0');
        if (digits)
            fprintf(out, "%ssm_%ld", first ? "" : " ", v / 10);
        first = first && !digits;
        while (*s && (*s < '0' || *s > '9'))
            s++;
    }
}

winent_status winent_version_print(FILE *out)
{
    if (out == NULL)
        return WINENT_ERR_USAGE; /* no winent_error to name it in */
    fprintf(out, "winent-stream %s\n", WINENT_VERSION_STRING);
    int runtime = 0;
    const char *archs = "";
    if (winent_devices_build_info(&runtime, &archs)) {
        fprintf(out, "engines: cpu, reference, cuda (CUDA runtime ");
        if (runtime > 0)
            fprintf(out, "%d.%d", runtime / 1000, runtime % 1000 / 10);
        else
            fprintf(out, "unknown");
        fprintf(out, "; architectures ");
        if (*archs)
            print_archs(out, archs);
        else
            fprintf(out, "unknown");
        fprintf(out, ")\n");
    } else {
        fprintf(out, "engines: cpu, reference (built without CUDA)\n");
    }
    winent_lib_version libs[8];
    int n = winent_lib_versions(libs, 8);
    fprintf(out, "libraries:");
    for (int i = 0; i < n; i++)
        fprintf(out, "%s %s %s", i ? "," : "", libs[i].name, libs[i].version);
#ifdef _OPENMP
    fprintf(out, ", OpenMP %s (%ld)", openmp_spec((long)_OPENMP), (long)_OPENMP);
#endif
    fprintf(out, "\n");
    fprintf(out, "licence: BSD-3-Clause (the libraries above: each under its own; see the "
                 "copyright file of the package or LICENSE in the source)\n");
    if (fflush(out) != 0 || ferror(out))
        return WINENT_ERR_OUTPUT;
    return WINENT_OK;
}
