/* Reads no input, but its path depends on an uninitialized local, whose
 * contents C leaves indeterminate: the run on zeros takes one branch, a
 * run on other contents the other, so neither run is the program's only
 * execution and the pass proves nothing. */
extern void reach_error(void);

static int pick(void) {
    volatile int junk[4];
    return junk[2];
}

int main(void) {
    if (pick() != 0) /* UNINIT */
        return 1;
    return 0;
}
