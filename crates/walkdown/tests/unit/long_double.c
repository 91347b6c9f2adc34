/* Unit mode with long double parameters, fields and globals: the harness
   fills each from a double input, widened exactly. */
struct account { long double balance; int frozen; };
extern void reach_error(void);
long double rate = 0.05L;
int apply_interest(struct account *a, long double years) {
    if (a == 0 || a->frozen)
        return -1;
    if (years < 0)
        return -2;
    a->balance = a->balance * (1 + rate * years);
    if (a->balance > 1e6L && years < 2)
        reach_error();
    return a->balance > 1000 ? 1 : 0;
}
