// Inputs from {1..6}, but the state grows with them: the sum of the
// inputs is a global, so the reachable states are unbounded (the error is
// reachable only after more than 10^6 steps). The search must give up
// rather than prove anything.
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int sum = 0;

int main(void) {
    while (1) {
        int input = __VERIFIER_nondet_int();
        if (input < 1 || input > 6) {
            return 0;
        }
        sum = sum + input;
        if (sum > 6000000) {
            reach_error();
        }
    }
}
