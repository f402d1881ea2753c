/*
 * bp_cli_version.c - prints a program's version line for --version
 * (bp_cli_version.h). BP_PROJECT_VERSION comes from CMakeLists.txt.
 */
#include <stdio.h>

#include "bp_cli_version.h"

void bp_cli_print_version(const char *program, const char *detail) {
        if (detail)
                printf("%s %s (%s)\n", program, BP_PROJECT_VERSION, detail);
        else
                printf("%s %s\n", program, BP_PROJECT_VERSION);
}
