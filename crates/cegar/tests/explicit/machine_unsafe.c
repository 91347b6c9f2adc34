// A state machine over globals, inputs from {1..6}: the error state
// (s == 3 with t == 2) is reached by the inputs 1, 5, 2, 3 (t: 2, 7, 2).
extern int __VERIFIER_nondet_int(void);
void reach_error(void) {}

int s = 0;
int t = 0;

void step(int input) {
    if (s == 0 && input == 1) {
        s = 1;
        t = 2;
    } else if (s == 1 && input == 2) {
        s = 2;
        t = t - 5;
    } else if (s == 2 && input == 3) {
        s = 3;
    } else if (s == 3 && input == 4) {
        s = 0;
        t = 0;
    } else if (s == 1 && input == 5) {
        t = 7;
    } else if (s == 1 && input == 6) {
        s = 0;
    }
    if (s == 3 && t == 2) {
        reach_error();
    }
}

int main(void) {
    while (1) {
        int input = __VERIFIER_nondet_int();
        if (input < 1 || input > 6) {
            return 0;
        }
        step(input);
    }
}
