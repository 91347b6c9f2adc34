/* Never reaches the error: for 1 <= x <= 15, x + 2^-60 is exact in long
   double (a 64-bit significand) and differs from x. A model that rounded
   like double (53 bits) would take it for x and reach the error. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
    int x = __VERIFIER_nondet_int();
    if (x < 1 || x > 15)
        return 0;
    long double tiny = 1.0L / (1LL << 60);
    long double sum = (long double)x + tiny;
    if (sum == (long double)x)
        reach_error();
    return 0;
}
