/* walkdown's own fixture: a branch no environment of at most 3 arguments
 * reaches, so its proof holds within the environment only. */
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc > 10) {
        puts(argv[10]);
        return 1;
    }
    return 0;
}
