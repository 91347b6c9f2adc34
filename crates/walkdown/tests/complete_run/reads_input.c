/* Like loop_calls.c, but the bound is an input: its run on no input is
 * one execution among many, so it proves nothing. */
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);

static unsigned step(unsigned x) {
    if (x % 3 == 0)
        return x + 1;
    return x + 2;
}

int main(void) {
    int n = __VERIFIER_nondet_int();
    unsigned x = 0;
    for (int i = 0; i < n && i < 1000; i++)
        x = step(x);
    if (x == 7) /* INPUT */
        reach_error();
    return 0;
}
