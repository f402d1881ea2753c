/*
 * bp_assignor_conf.c - consumer side configuration hooks. The producer issue
 * only needs the hook points; the consumer behaviour lands with the
 * consumer side.
 */
#include "bp_assignor.h"

void bp_assignor_on_conf_init(bp_client_t *c, rd_kafka_conf_t *conf) {
        (void)c, (void)conf;
}

rd_kafka_conf_res_t bp_assignor_on_conf_set(bp_client_t *c,
                                            rd_kafka_conf_t *conf,
                                            const char *name,
                                            const char *value,
                                            char *errstr,
                                            size_t errstr_size) {
        (void)c, (void)conf, (void)name, (void)value, (void)errstr,
            (void)errstr_size;
        return RD_KAFKA_CONF_UNKNOWN;
}

rd_kafka_conf_res_t bp_assignor_after_conf_set(bp_client_t *c,
                                               rd_kafka_conf_t *conf,
                                               const char *name,
                                               char *errstr,
                                               size_t errstr_size) {
        (void)c, (void)conf, (void)name, (void)errstr, (void)errstr_size;
        return RD_KAFKA_CONF_OK;
}

rd_kafka_resp_err_t bp_assignor_on_new(bp_client_t *c,
                                       rd_kafka_t *rk,
                                       const rd_kafka_conf_t *conf,
                                       char *errstr,
                                       size_t errstr_size) {
        (void)c, (void)rk, (void)conf, (void)errstr, (void)errstr_size;
        return RD_KAFKA_RESP_ERR_NO_ERROR;
}
