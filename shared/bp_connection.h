/*
 * bp_connection.h - which client properties say how to reach and
 * authenticate to the cluster. The side clients the project builds from a
 * user's configuration (bp-audit, and the plugin's reader of sibling
 * groups' offsets) take these and nothing else: no plugin, no group
 * settings, no application callbacks.
 */
#ifndef BP_CONNECTION_H
#define BP_CONNECTION_H

/**
 * 1 when \p name is a connection, security or identity property: the
 * bootstrap list (bootstrap.servers, metadata.broker.list),
 * security.protocol, sasl.*, ssl.*, enable.ssl.certificate.verification,
 * enable.sasl.oauthbearer.unsecure.jwt, https.* (OIDC), socket.*,
 * api.version.*, broker.version.fallback, broker.address.family,
 * client.dns.lookup, client.id and debug. 0 for anything else.
 */
int bp_connection_property(const char *name);

#endif /* BP_CONNECTION_H */
