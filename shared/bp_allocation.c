/*
 * bp_allocation.c - parsing and printing bucket allocations ("70%",
 * "33.3333") as exact fixed point units, so that sums are checked exactly.
 */
#include "bp_config.h"

#include <stdio.h>

#include "bp_list.h"

int bp_allocation_parse(const char *s,
                        size_t len,
                        uint32_t *units,
                        const char **why) {
        uint64_t whole = 0, frac = 0;
        size_t i = 0;
        int int_digits = 0, frac_digits = 0;

        bp_trim(&s, &len);
        if (len > 0 && s[len - 1] == '%') {
                len--;
                bp_trim(&s, &len);
        }
        if (len == 0) {
                *why = "is empty";
                return -1;
        }
        if (s[0] == '-') {
                *why = "is negative";
                return -1;
        }
        if (s[0] == '+')
                i++;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
                int_digits++;
                whole = whole * 10 + (uint64_t)(s[i] - '0');
                if (whole > 100) {
                        *why = "is above 100";
                        return -1;
                }
        }
        if (i < len && s[i] == '.') {
                for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
                        if (++frac_digits > BP_ALLOCATION_DECIMALS) {
                                *why = "has more than 4 decimals";
                                return -1;
                        }
                        frac = frac * 10 + (uint64_t)(s[i] - '0');
                }
        }
        if (i != len || (int_digits == 0 && frac_digits == 0)) {
                *why = "is not a number";
                return -1;
        }
        while (frac_digits++ < BP_ALLOCATION_DECIMALS)
                frac *= 10;
        whole = whole * (BP_ALLOCATION_UNITS / 100) + frac;
        if (whole == 0) {
                *why = "is zero";
                return -1;
        }
        if (whole > BP_ALLOCATION_UNITS) {
                *why = "is above 100";
                return -1;
        }
        *units = (uint32_t)whole;
        return 0;
}

void bp_allocation_format(uint32_t units, char *buf, size_t size) {
        uint32_t per = BP_ALLOCATION_UNITS / 100;
        uint32_t whole = units / per, frac = units % per;
        int digits = BP_ALLOCATION_DECIMALS;

        if (frac == 0) {
                snprintf(buf, size, "%u", whole);
                return;
        }
        while (frac % 10 == 0) {
                frac /= 10;
                digits--;
        }
        snprintf(buf, size, "%u.%0*u", whole, digits, frac);
}
