/* Reads no input; its loop calls a function 10^6 times (no fast-forward:
 * the body calls), then ends. One complete run decides every goal: the
 * guarded error and the dead branch are proved unreachable. */
extern void reach_error(void);

static unsigned step(unsigned x) {
    if (x % 3 == 0) /* OFTEN */
        return x + 1;
    return x + 2;
}

int main(void) {
    unsigned x = 0;
    for (int i = 0; i < 1000000; i++)
        x = step(x);
    if (x == 7) /* NEVER */
        reach_error();
    return 0;
}
