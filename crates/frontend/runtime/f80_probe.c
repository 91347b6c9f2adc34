/* Runs the long double runtime on test vectors with gcc's x87 results, for
 * checking the runtime where there is no x87 to compare with: in walkdown's
 * interpreter. The vectors come from `f80_check --vectors SEED N > f80_vectors.h`;
 * the program calls reach_error() and exits with the number of mismatches
 * (at most 100) if any result differs. walkdown copies a C file before
 * compiling it, so preprocess the includes away first:
 *
 *   gcc -O0 f80_check.c f80.c -o f80_check && ./f80_check --vectors 42 600 > f80_vectors.h
 *   clang-14 -E -P f80_probe.c -o probe.c && walkdown run --inputs "" probe.c
 */
#include "f80.c"
#include "f80_vectors.h"
extern void reach_error(void);
int main(void) {
    unsigned long long o[2];
    int bad = 0;
    unsigned i;
    for (i = 0; i < sizeof f80_bin_vectors / sizeof f80_bin_vectors[0]; i++) {
        const unsigned long long *v = f80_bin_vectors[i];
        switch ((int)v[0]) {
        case 0: o[0] = __walkdown_f80_add(&o[1], v[1], v[2], v[3], v[4]); break;
        case 1: o[0] = __walkdown_f80_sub(&o[1], v[1], v[2], v[3], v[4]); break;
        case 2: o[0] = __walkdown_f80_mul(&o[1], v[1], v[2], v[3], v[4]); break;
        case 3: o[0] = __walkdown_f80_div(&o[1], v[1], v[2], v[3], v[4]); break;
        default: o[0] = (unsigned long long)__walkdown_f80_cmp(v[1], v[2], v[3], v[4]); o[1] = 0;
        }
        bad += o[0] != v[5] || o[1] != v[6];
    }
    for (i = 0; i < sizeof f80_unary_vectors / sizeof f80_unary_vectors[0]; i++) {
        const unsigned long long *v = f80_unary_vectors[i];
        int w, k = 6;
        o[0] = __walkdown_f80_sqrt(&o[1], v[0], v[1]);
        bad += o[0] != v[2] || o[1] != v[3];
        bad += __walkdown_f80_to_double(v[0], v[1]) != v[4];
        bad += __walkdown_f80_to_float(v[0], v[1]) != (unsigned)v[5];
        for (w = 8; w <= 64; w *= 2, k += 2) {
            bad += __walkdown_f80_to_int(v[0], v[1], w, 0) != v[k];
            bad += __walkdown_f80_to_int(v[0], v[1], w, 1) != v[k + 1];
        }
        /* conversions from double, float, integers: through the results */
        o[0] = __walkdown_f80_from_double(&o[1], v[4]);
        bad += __walkdown_f80_to_double(o[0], o[1]) != (v[4] | ((v[4] & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL && (v[4] << 12) ? 0x0008000000000000ULL : 0));
        o[0] = __walkdown_f80_from_int(&o[1], v[12], 1);
        bad += __walkdown_f80_to_int(o[0], o[1], 64, 1) != v[12];
    }
    if (bad) reach_error();
    return bad > 100 ? 100 : bad;
}
