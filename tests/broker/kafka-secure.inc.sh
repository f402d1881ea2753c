# kafka-secure.inc.sh - the secured cluster of `kafka.sh start --secure`
# (sourced by kafka.sh; bash functions only).
#
# One node whose broker listener is SASL_SSL:
#   - TLS: a CA, the broker's certificate (SAN 127.0.0.1, localhost) in a
#     PKCS12 keystore, the CA in a PKCS12 truststore (keytool), and a client
#     certificate with a password-protected PEM key for clients that send
#     one (ssl.client.auth=requested), all made here with openssl and
#     keytool, in DIR/secure/tls;
#   - SASL mechanisms SCRAM-SHA-512 and SCRAM-SHA-256 (users created by
#     Kafka's StorageTool --add-scram when the storage is formatted), PLAIN (the same users and
#     passwords, in the listener's JAAS configuration: librdkafka 2.0.2
#     cannot do SCRAM against Kafka 4.x) and OAUTHBEARER with Kafka's
#     unsecured-token validator (the token's "sub" is the principal);
#   - StandardAuthorizer, no ACL but for the super user "admin": the tests
#     grant each role what it needs with `kafka.sh acl` (Kafka's
#     AclCommand), everything else is denied;
#   - the controller listener SASL_PLAINTEXT with PLAIN, user admin.
#
# Passwords are random per start. DIR/secure/secure.json (mode 600) holds
# everything a test needs: bootstrap, CA and client certificate paths, the
# key password, and the users' passwords; admin.java.properties is the
# Kafka tools' client configuration (kafka.sh topics and acl use it).

SECURE_USERS="${BP_KAFKA_SECURE_USERS:-producer critical normal bulk multi audit audit-nogroups audit-notopic}"

# secure_secret: 24 random letters and digits.
secure_secret() {
    "$PY" -c 'import secrets, string
print("".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(24)))'
}

# secure_tls DIR: CA, broker keystore, truststore, client key and cert.
secure_tls() {
    local t="$1/secure/tls"
    mkdir -p "$t"
    (
        set -e
        cd "$t"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bp-test-ca" \
            -keyout ca.key -out ca.pem
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > san.ext
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
            -keyout broker.key -out broker.csr
        openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -days 2 -extfile san.ext -out broker.pem
        openssl pkcs12 -export -in broker.pem -inkey broker.key -certfile ca.pem \
            -name broker -passout "pass:$SECURE_KEYSTORE_PASSWORD" -out broker.p12
        keytool -importcert -noprompt -alias bp-test-ca -file ca.pem \
            -keystore truststore.p12 -storetype PKCS12 \
            -storepass "$SECURE_TRUSTSTORE_PASSWORD"
        openssl req -newkey rsa:2048 -subj "/CN=bp-client" \
            -passout "pass:$SECURE_CLIENT_KEY_PASSWORD" -keyout client.key -out client.csr
        openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial \
            -days 2 -out client.pem
        rm -f ca.key broker.csr client.csr san.ext
    ) >"$1/logs/tls.log" 2>&1 || { cat "$1/logs/tls.log" >&2; die "making the TLS material failed"; }
}

# secure_prepare DIR: passwords, TLS material, and SECURE_FORMAT_ARGS, the
# StorageTool arguments that create the SCRAM users.
secure_prepare() {
    local dir="$1" u
    mkdir -p "$dir/secure"
    chmod 700 "$dir/secure"
    SECURE_KEYSTORE_PASSWORD="$(secure_secret)"
    SECURE_TRUSTSTORE_PASSWORD="$(secure_secret)"
    SECURE_CLIENT_KEY_PASSWORD="$(secure_secret)"
    declare -gA SECURE_PASSWORDS=()
    for u in admin $SECURE_USERS; do
        SECURE_PASSWORDS[$u]="$(secure_secret)"
    done
    secure_tls "$dir"
    SECURE_FORMAT_ARGS=()
    for u in admin $SECURE_USERS; do
        SECURE_FORMAT_ARGS+=(--add-scram "SCRAM-SHA-512=[name=$u,password=${SECURE_PASSWORDS[$u]}]"
                             --add-scram "SCRAM-SHA-256=[name=$u,password=${SECURE_PASSWORDS[$u]}]")
    done
}

# secure_node_config DIR: the node's security settings (appended to its
# configuration by write_node_config).
secure_node_config() {
    local t="$1/secure/tls" u plain_users=""
    for u in admin $SECURE_USERS; do
        plain_users+=" user_$u=\"${SECURE_PASSWORDS[$u]}\""
    done
    cat <<EOF
# --- secure cluster (kafka-secure.inc.sh) ---
sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN,OAUTHBEARER
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${SECURE_PASSWORDS[admin]}";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${SECURE_PASSWORDS[admin]}"$plain_users;
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";
listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${SECURE_PASSWORDS[admin]}" user_admin="${SECURE_PASSWORDS[admin]}";
ssl.keystore.type=PKCS12
ssl.keystore.location=$t/broker.p12
ssl.keystore.password=$SECURE_KEYSTORE_PASSWORD
ssl.key.password=$SECURE_KEYSTORE_PASSWORD
ssl.truststore.type=PKCS12
ssl.truststore.location=$t/truststore.p12
ssl.truststore.password=$SECURE_TRUSTSTORE_PASSWORD
ssl.client.auth=requested
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin
EOF
}

# secure_after_start DIR BOOTSTRAP: the tools' and the tests' client
# settings, once the bootstrap is known.
secure_after_start() {
    local dir="$1" bootstrap="$2" t="$1/secure/tls" u
    cat > "$dir/secure/admin.java.properties" <<EOF
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="${SECURE_PASSWORDS[admin]}";
ssl.truststore.type=PKCS12
ssl.truststore.location=$t/truststore.p12
ssl.truststore.password=$SECURE_TRUSTSTORE_PASSWORD
EOF
    local users_json=""
    for u in admin $SECURE_USERS; do
        users_json+="${users_json:+, }\"$u\": \"${SECURE_PASSWORDS[$u]}\""
    done
    cat > "$dir/secure/secure.json" <<EOF
{"bootstrap": "$bootstrap",
 "mechanisms": ["SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", "OAUTHBEARER"],
 "ca": "$t/ca.pem",
 "client_cert": "$t/client.pem",
 "client_key": "$t/client.key",
 "client_key_password": "$SECURE_CLIENT_KEY_PASSWORD",
 "keystore_password": "$SECURE_KEYSTORE_PASSWORD",
 "truststore_password": "$SECURE_TRUSTSTORE_PASSWORD",
 "admin_properties": "$dir/secure/admin.java.properties",
 "users": {$users_json}}
EOF
    chmod 600 "$dir/secure/secure.json" "$dir/secure/admin.java.properties"
}

# kafka.sh acl [--dir DIR] ARGS...: Kafka's AclCommand as the admin.
cmd_acl() {
    parse_dir_opt "$@"
    [[ -f "$DIR/bootstrap" ]] || die "no running cluster in $DIR"
    [[ -f "$DIR/secure/admin.java.properties" ]] || die "$DIR is not a secure cluster (start --secure)"
    run_tool "$DIR" org.apache.kafka.tools.AclCommand \
        --bootstrap-server "$(cat "$DIR/bootstrap")" \
        --command-config "$DIR/secure/admin.java.properties" "${REST[@]}"
}
