/* walkdown's own fixture: a filter whose bug needs an option and a line
 * of standard input (`prog -x` with the line "!"). */
#include <stdio.h>
#include <assert.h>

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] != '-' || argv[1][1] != 'x')
        return 1;
    char line[8];
    if (!fgets(line, sizeof line, stdin))
        return 2;
    assert(!(line[0] == '!' && line[1] == '\n'));
    return 0;
}
