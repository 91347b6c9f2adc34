// A global keeps a 32-bit input: the state at the loop head is not
// determined by the path taken, so the search is not applicable.
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int last = 0;

int main(void) {
    while (__VERIFIER_nondet_int()) {
        if (last == 123456789) {
            reach_error();
        }
        last = __VERIFIER_nondet_int();
    }
    return 0;
}
