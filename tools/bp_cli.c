/*
 * bp_cli.c - the options skeleton's parse loop and --version (see
 * bp_cli.h; the checked numbers are in bp_cli_number.c).
 * BP_PROJECT_VERSION comes from CMakeLists.txt.
 */
#include "bp_cli.h"

#include <stdio.h>
#include <stdlib.h>

int bp_cli_parse(const bp_cli_t *cli, int argc, char **argv) {
        const char *shorts = cli->short_options ? cli->short_options : "";
        int opt;

        while ((opt = getopt_long(argc, argv, shorts, cli->options, NULL)) !=
               -1) {
                switch (opt) {
                case BP_CLI_OPT_HELP:
                        if (cli->help)
                                cli->help();
                        else
                                cli->usage(stdout);
                        return 0;
                case BP_CLI_OPT_VERSION:
                        bp_cli_print_version(cli->program,
                                             cli->version_detail);
                        return 0;
                case '?': /* unknown, or its value missing: getopt said */
                case ':':
                        cli->usage(stderr);
                        return 2;
                default:
                        switch (cli->take(cli->ctx, opt, optarg)) {
                        case 0:
                                break;
                        case BP_CLI_USAGE:
                                cli->usage(stderr);
                                return 2;
                        default: /* refused: take said why */
                                return 2;
                        }
                }
        }
        if (optind < argc) {
                fprintf(stderr, "%s: unexpected argument \"%s\"\n",
                        cli->program, argv[optind]);
                cli->usage(stderr);
                return 2;
        }
        return -1;
}

void bp_cli_parse_or_exit(const bp_cli_t *cli, int argc, char **argv) {
        int rc = bp_cli_parse(cli, argc, argv);

        if (rc >= 0)
                exit(rc);
}

void bp_cli_print_version(const char *program, const char *detail) {
        if (detail)
                printf("%s %s (%s)\n", program, BP_PROJECT_VERSION, detail);
        else
                printf("%s %s\n", program, BP_PROJECT_VERSION);
}
