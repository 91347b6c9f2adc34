/* The error needs 700.0 < x < 701.4: x = 701 (701 / 7 = 100.142...). */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int main(void) {
    int x = __VERIFIER_nondet_int();
    long double v = (long double)x / 7;
    if (v > 100.0L && v < 100.2L)
        reach_error();
    return 0;
}
