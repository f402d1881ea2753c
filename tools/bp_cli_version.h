/*
 * bp_cli_version.h - the --version option of the command-line programs:
 * one line, "<program> <version>", where the version is the project's
 * (include/bucket_priority.h, read by CMakeLists.txt), the same that the
 * plugin logs, pkg-config reports and the packages carry.
 */
#ifndef BP_CLI_VERSION_H
#define BP_CLI_VERSION_H

#include <getopt.h>

/** getopt_long() value of --version: above any character. */
#define BP_CLI_OPT_VERSION 0x1ff

/** The --version entry of a getopt_long() option table. */
#define BP_CLI_VERSION_OPTION {"version", no_argument, NULL, BP_CLI_OPT_VERSION}

/**
 * Prints "<program> <version>" on stdout, followed by " (<detail>)" when
 * \p detail is not NULL (bp-audit names the librdkafka it runs on).
 */
void bp_cli_print_version(const char *program, const char *detail);

#endif /* BP_CLI_VERSION_H */
