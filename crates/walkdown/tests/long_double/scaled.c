/* The error needs x = 667: 667 * 1.5 + 0.25 = 1000.75. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
    int x = __VERIFIER_nondet_int();
    long double v = x;
    v = v * 1.5L + 0.25L;
    if (v > 1000.5L && v < 1001.0L)
        reach_error();
    return 0;
}
