/*
 * bp_connection.c - the list of connection, security and identity
 * properties (see bp_config.h).
 */
#include "bp_config.h"

#include <string.h>

int bp_connection_property(const char *name) {
        static const char *const exact[] = {
            "bootstrap.servers",
            "metadata.broker.list",
            "security.protocol",
            "enable.ssl.certificate.verification",
            "enable.sasl.oauthbearer.unsecure.jwt",
            "broker.version.fallback",
            "broker.address.family",
            "client.dns.lookup",
            "client.id",
            "debug"};
        static const char *const prefix[] = {"sasl.", "ssl.", "https.",
                                             "socket.", "api.version."};
        size_t i;

        for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
                if (!strcmp(name, exact[i]))
                        return 1;
        for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
                if (!strncmp(name, prefix[i], strlen(prefix[i])))
                        return 1;
        return 0;
}
