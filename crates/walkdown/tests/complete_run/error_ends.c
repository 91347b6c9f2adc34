/* Reads no input and reaches the error: the run covers it, and the goals
 * after it (never run) are proved unreachable. */
extern void reach_error(void);
extern void abort(void);

static int sum(int n) {
    int s = 0;
    for (int i = 1; i <= n; i++)
        s += i;
    return s;
}

int main(void) {
    if (sum(100) == 5050) { /* HIT */
        reach_error();
        abort();
    }
    if (sum(10) > 0) /* AFTER */
        return 1;
    return 0;
}
