/* Reachable only with the x87's 64-bit significand: x + 2^-60 differs
   from x for 1 <= x <= 15 in long double, and for no x >= 1 in double. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
    int x = __VERIFIER_nondet_int();
    if (x < 1 || x > 1000)
        return 0;
    long double tiny = 1.0L / (1LL << 60);
    long double sum = (long double)x + tiny;
    if (sum != (long double)x && x > 9)
        reach_error();
    return 0;
}
