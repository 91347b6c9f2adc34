/* The C library functions walkdown models in walkdown_interp::libc, on
   standard input at end of file (as the native harness runs programs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sum;

static void note(const char *what, long v) {
    printf("%s %ld\n", what, v);
    sum = sum * 31 + (int)v;
}

int main(void) {
    char buf[32] = "walk";
    char line[16];
    int n = 7;
    note("getchar", getchar());
    note("getc", getc(stdin));
    note("fgetc", fgetc(stdin));
    note("fgets", fgets(line, sizeof line, stdin) == NULL);
    note("scanf", scanf("%d", &n));
    note("scanf stored", n);
    note("fscanf", fscanf(stdin, "%d", &n));
    note("fread", (long)fread(line, 1, sizeof line, stdin));
    note("read 0", (long)read(0, line, sizeof line));
    note("read 9", (long)read(9, line, sizeof line));
    strcat(buf, "down");
    note("strcat", (long)strlen(buf));
    strncat(buf, "-tests", 3);
    printf("%s\n", buf);
    note("strncat", (long)strlen(buf));
    note("strrchr w", strrchr(buf, 'w') - buf);
    note("strrchr 0", strrchr(buf, 0) - buf);
    note("strrchr z", strrchr(buf, 'z') == NULL);
    note("strstr", strstr(buf, "down") - buf);
    note("strstr empty", strstr(buf, "") - buf);
    note("strstr none", strstr(buf, "up") == NULL);
    note("strnlen 3", (long)strnlen(buf, 3));
    note("strnlen 99", (long)strnlen(buf, 99));
    note("memchr", (char *)memchr(buf, 'd', 8) - buf);
    note("memchr none", memchr(buf, 'q', 8) == NULL);
    note("abs", abs(-12));
    note("labs", labs(-1234567L));
    note("llabs", (long)llabs(-99LL));
    volatile double x = -2.5, y = 2.5, z = 7.75;
    volatile float xf = -2.5f;
    note("floor", (long)floor(x));
    note("ceil", (long)ceil(x));
    note("trunc", (long)trunc(-2.7));
    note("round", (long)round(x));
    note("round+", (long)round(y));
    note("rint", (long)rint(y));
    note("nearbyint", (long)nearbyint(3.5));
    note("fmod", (long)(fmod(z, -2.0) * 100));
    note("fmod neg", (long)(fmod(-z, 2.0) * 100));
    note("copysign", (long)copysign(3.0, x));
    note("floorf", (long)floorf(xf));
    note("roundf", (long)roundf(xf));
    note("fmodf", (long)(fmodf(7.5f, 2.0f) * 10));
    return sum & 0x7f;
}
