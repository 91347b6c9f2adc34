/*
 * walkdown_harness.c -- the Test-Comp environment for a task compiled
 * natively by walkdown (crate walkdown-native).
 *
 * Linked with a task built with --coverage (and, when gcc accepts it,
 * -finstrument-functions); this file itself is built without either.
 *
 * Inputs: every __VERIFIER_nondet_T() call takes the next line of the file
 * named by $WD_INPUTS and converts it to T like a C cast. Lines use the
 * Test-Comp literal syntax: decimal with optional sign and suffix, 0x hex,
 * 0b binary, 'c' character literals, true/false, and floating-point
 * numbers (which integer types truncate toward zero). A leading 0 does not
 * mean octal. Past the last line a call returns 0 and the run is marked as
 * having run out of inputs; with $WD_EXHAUSTED=exit it exits with status 1
 * instead (what TestCov does).
 *
 * Report: the file named by $WD_REPORT receives, once, when the process
 * ends (exit, abort, fatal signal, SIGTERM from a timeout):
 *     nondet_calls N
 *     inputs_exhausted 0|1
 *     assume_failed 0|1
 *     reach_error 0|1
 *     assert_fail 0|1
 *     denied ACTION ERROR SUBJECT      (up to 8 lines; see below)
 *     end exit | end abort | end signal N
 * The code that writes it is async-signal-safe. Only the process the run
 * started writes it (not children it forks).
 *
 * Denials: the native build links the task with -Wl,--wrap=NAME for the C
 * library calls that write, delete, connect or fork (walkdown-native's
 * sandbox::WRAPPED_CALLS); each __wrap_NAME below calls the real function
 * and, when it fails the way walkdown's sandbox makes calls fail, notes
 * ACTION (write, delete, connect, fork), the errno's name and the path or
 * address, without changing what the task sees: EROFS, EACCES and EPERM
 * always; ENOENT for a path under a directory the sandbox hides
 * ($WD_HIDDEN, `:`-separated); any failed connection in the sandbox
 * ($WD_SANDBOX=1), whose network has no other host and nothing listening;
 * EAGAIN from fork. Forks are also counted across all the run's processes
 * (a shared page): past $WD_MAX_FORKS, fork fails with EAGAIN, the
 * process limit root is exempt from.
 *
 * Coverage: gcov data is dumped before every abnormal end, so crashing and
 * timed-out tests keep their coverage. A crash (SIGSEGV, SIGFPE, ...) is
 * handled in the signal handler of the thread that faulted. A stop from
 * outside (SIGTERM from the timeout, SIGINT) is not: it may arrive while
 * the program is inside malloc or stdio, and __gcov_dump, which allocates
 * and opens files, would then deadlock or crash in the handler and the
 * run's coverage would be lost. Those signals are blocked in the program's
 * thread and taken by a watchdog thread with sigwait, which dumps the
 * coverage in an ordinary context while the program's thread goes on
 * (releasing whatever lock it held), after lifting the soft address-space
 * limit so that a program that used up its memory does not make the dump
 * fail for want of it.
 *
 * Standalone (a driver `walkdown replay --emit-driver` writes): with
 * WD_STANDALONE defined and the values in the string wd_embedded_inputs
 * (one a line) defined before this file, the inputs come from that string
 * instead of $WD_INPUTS, the report goes to standard error when $WD_REPORT
 * is unset, and coverage is dumped only when the program is linked with
 * --coverage.
 *
 * Every function a task may define itself is weak: the task's own wins.
 * A task's own reach_error() is recognised on entry through the
 * -finstrument-functions hook, whatever its body does afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define WD_WEAK __attribute__((weak))
#define WD_HOOK __attribute__((no_instrument_function))

#ifdef WD_STANDALONE
extern void __gcov_dump(void) __attribute__((weak));
#else
extern void __gcov_dump(void);
#endif

/* The widest integer the target has: 32-bit x86 has no __int128. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 wd_ubig;
typedef __int128 wd_sbig;
#else
typedef unsigned long long wd_ubig;
typedef long long wd_sbig;
#endif

/* ---------------------------------------------------------------- */
/* run state, read by the signal handlers                             */
/* ---------------------------------------------------------------- */

static volatile sig_atomic_t wd_report_written;
static volatile sig_atomic_t wd_coverage_dumped;
static volatile sig_atomic_t wd_inputs_exhausted;
static volatile sig_atomic_t wd_assume_failed;
static volatile sig_atomic_t wd_reach_error;
static volatile sig_atomic_t wd_assert_fail;
/* Only this thread writes it; a handler reading a half-updated value on a
 * 32-bit target would be off by one call at worst. */
static volatile unsigned long long wd_nondet_calls;
static int wd_report_fd = -1;
/* The process the run started: its children do not report. */
static pid_t wd_main_pid;

/* What the sandbox denied, filled in ordinary context and only read by
 * the report writer: an entry counts once wd_denied_count includes it. */
#define WD_MAX_DENIED 8
#define WD_SUBJECT_MAX 200
struct wd_denial {
  const char *action;
  const char *error;
  char subject[WD_SUBJECT_MAX];
};
static struct wd_denial wd_denied[WD_MAX_DENIED];
static volatile sig_atomic_t wd_denied_count;

static WD_HOOK size_t wd_put_text(char *buf, size_t at, const char *text) {
  while (*text)
    buf[at++] = *text++;
  return at;
}

static WD_HOOK size_t wd_put_number(char *buf, size_t at, unsigned long long n) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = (char)('0' + n % 10);
    n /= 10;
  } while (n);
  while (count)
    buf[at++] = digits[--count];
  return at;
}

static WD_HOOK size_t wd_put_field(char *buf, size_t at, const char *name,
                                   unsigned long long value) {
  at = wd_put_text(buf, at, name);
  buf[at++] = ' ';
  at = wd_put_number(buf, at, value);
  buf[at++] = '\n';
  return at;
}

/* end_signal: 0 for a normal exit, -1 for the harness's own abort, else
 * the signal number.  Async-signal-safe: only write() on a buffer. */
static WD_HOOK void wd_write_report(int end_signal) {
  if (wd_report_written || wd_report_fd < 0 || getpid() != wd_main_pid)
    return;
  wd_report_written = 1;
  char buf[256 + WD_MAX_DENIED * (WD_SUBJECT_MAX + 32)];
  size_t n = 0;
  n = wd_put_field(buf, n, "nondet_calls", wd_nondet_calls);
  n = wd_put_field(buf, n, "inputs_exhausted", wd_inputs_exhausted != 0);
  n = wd_put_field(buf, n, "assume_failed", wd_assume_failed != 0);
  n = wd_put_field(buf, n, "reach_error", wd_reach_error != 0);
  n = wd_put_field(buf, n, "assert_fail", wd_assert_fail != 0);
  for (int i = 0; i < wd_denied_count && i < WD_MAX_DENIED; i++) {
    n = wd_put_text(buf, n, "denied ");
    n = wd_put_text(buf, n, wd_denied[i].action);
    buf[n++] = ' ';
    n = wd_put_text(buf, n, wd_denied[i].error);
    buf[n++] = ' ';
    n = wd_put_text(buf, n, wd_denied[i].subject);
    buf[n++] = '\n';
  }
  if (end_signal == 0)
    n = wd_put_text(buf, n, "end exit\n");
  else if (end_signal < 0)
    n = wd_put_text(buf, n, "end abort\n");
  else
    n = wd_put_field(buf, n, "end signal", (unsigned long long)end_signal);
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(wd_report_fd, buf + done, n - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    done += (size_t)w;
  }
}

static WD_HOOK void wd_dump_coverage(void) {
  if (!wd_coverage_dumped) {
    wd_coverage_dumped = 1;
#ifdef WD_STANDALONE
    if (__gcov_dump)
#endif
    __gcov_dump();
  }
}

/* The end of a run the harness decides on (reach_error, failed assertion):
 * report, keep the coverage, then die of SIGABRT like assert() would. */
static WD_HOOK void wd_abort_run(void) __attribute__((noreturn));
static WD_HOOK void wd_abort_run(void) {
  fflush(stdout);
  wd_write_report(-1);
  wd_dump_coverage();
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
  _exit(134);
}

/* ---------------------------------------------------------------- */
/* start-up: report file, limits, handlers                            */
/* ---------------------------------------------------------------- */

static WD_HOOK void wd_on_fatal_signal(int sig) {
  wd_write_report(sig);
  wd_dump_coverage();
  /* SA_RESETHAND restored the default action: raising again ends the
   * process with the original signal, which the parent sees. */
  raise(sig);
  _exit(128 + sig);
}

static WD_HOOK void wd_on_exit(void) { wd_write_report(0); }

/* The stops the watchdog thread takes (see the top of the file). */
static WD_HOOK void wd_stop_signals(sigset_t *set) {
  sigemptyset(set);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGINT);
}

static WD_HOOK void *wd_watchdog(void *unused) {
  (void)unused;
  sigset_t set;
  wd_stop_signals(&set);
  int sig = 0;
  while (sigwait(&set, &sig) != 0)
    ;
  /* The soft limit was set below the hard one for this moment. */
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) == 0) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_AS, &limit);
  }
  wd_write_report(sig);
  wd_dump_coverage();
  /* End of the whole process by the signal itself, as the parent expects:
   * the default action, unblocked in this thread. */
  signal(sig, SIG_DFL);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig);
}

/* Starts the watchdog; returns 0 when the program's thread must handle the
 * stop signals itself (no thread could be made). */
static WD_HOOK int wd_start_watchdog(void) {
  sigset_t set, old;
  wd_stop_signals(&set);
  if (pthread_sigmask(SIG_BLOCK, &set, &old) != 0)
    return 0;
  pthread_attr_t attr;
  pthread_t thread;
  int made = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 1 << 18) == 0 &&
             pthread_create(&thread, &attr, wd_watchdog, NULL) == 0;
  if (made)
    pthread_detach(thread);
  else
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  return made;
}

static WD_HOOK void wd_start_fork_budget(void);

__attribute__((constructor)) static WD_HOOK void wd_start(void) {
  wd_main_pid = getpid();
  wd_start_fork_budget();
  const char *report = getenv("WD_REPORT");
  if (report && *report)
    wd_report_fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
#ifdef WD_STANDALONE
  else
    wd_report_fd = 2;
#endif
  atexit(wd_on_exit);

  const char *limit_mb = getenv("WD_MEMLIMIT_MB");
  if (limit_mb && *limit_mb) {
    /* 4096 MiB does not fit a 32-bit rlim_t (it would wrap to 0): a limit
     * beyond what the type holds is no limit at all. */
    unsigned long long bytes = strtoull(limit_mb, NULL, 10) * 1024ULL * 1024ULL;
    struct rlimit limit;
    /* Only the soft limit: the watchdog lifts it to the hard one to dump
     * coverage of a program that used up its memory. */
    if (getrlimit(RLIMIT_AS, &limit) != 0)
      limit.rlim_max = RLIM_INFINITY;
    limit.rlim_cur = bytes >= (unsigned long long)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)bytes;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur > limit.rlim_max)
      limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_AS, &limit);
  }
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);

  /* A stack overflow must still be able to report and dump coverage. */
  static char alternate_stack[1 << 18];
  stack_t stack;
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  stack.ss_flags = 0;
  sigaltstack(&stack, NULL);

  static const int fatal[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGABRT, SIGTERM,
                              SIGINT,  SIGXCPU, SIGXFSZ, SIGALRM, SIGTRAP, SIGSYS};
  int watchdog = wd_start_watchdog();
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
    if (watchdog && (fatal[i] == SIGTERM || fatal[i] == SIGINT))
      continue;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = wd_on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    sigaction(fatal[i], &action, NULL);
  }
}

/* ---------------------------------------------------------------- */
/* reading input lines                                                */
/* ---------------------------------------------------------------- */

static char *wd_inputs;   /* whole file, lines split in place */
static size_t wd_inputs_len, wd_inputs_pos;
static int wd_inputs_loaded;

static WD_HOOK void wd_load_inputs(void) {
  wd_inputs_loaded = 1;
#ifdef WD_STANDALONE
  wd_inputs_len = strlen(wd_embedded_inputs);
  wd_inputs = malloc(wd_inputs_len + 1);
  if (wd_inputs)
    memcpy(wd_inputs, wd_embedded_inputs, wd_inputs_len + 1);
  else
    wd_inputs_len = 0;
  return;
#endif
  const char *path = getenv("WD_INPUTS");
  if (!path || !*path)
    return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  size_t capacity = 4096;
  wd_inputs = malloc(capacity + 1);
  while (wd_inputs) {
    if (wd_inputs_len == capacity) {
      capacity *= 2;
      char *grown = realloc(wd_inputs, capacity + 1);
      if (!grown)
        break;
      wd_inputs = grown;
    }
    ssize_t got = read(fd, wd_inputs + wd_inputs_len, capacity - wd_inputs_len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    wd_inputs_len += (size_t)got;
  }
  close(fd);
  if (wd_inputs)
    wd_inputs[wd_inputs_len] = 0;
  else
    wd_inputs_len = 0;
}

static WD_HOOK int wd_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next value's text, trimmed; NULL once the inputs are used up. */
static WD_HOOK const char *wd_next_text(void) {
  wd_nondet_calls++;
  if (!wd_inputs_loaded)
    wd_load_inputs();
  if (wd_inputs_pos >= wd_inputs_len) {
    wd_inputs_exhausted = 1;
    const char *mode = getenv("WD_EXHAUSTED");
    if (mode && strcmp(mode, "exit") == 0) {
      fflush(stdout);
      exit(1);
    }
    return NULL;
  }
  char *line = wd_inputs + wd_inputs_pos;
  char *newline = memchr(line, '\n', wd_inputs_len - wd_inputs_pos);
  char *end = newline ? newline : wd_inputs + wd_inputs_len;
  wd_inputs_pos = (size_t)(end - wd_inputs) + 1;
  *end = 0;
  while (end > line && wd_is_blank(end[-1]))
    *--end = 0;
  while (wd_is_blank(*line))
    line++;
  return line;
}

/* ---------------------------------------------------------------- */
/* literal syntax                                                     */
/* ---------------------------------------------------------------- */

static WD_HOOK int wd_digit_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* 'x', '\n', '\x41', '\101': the value of a signed char. */
static WD_HOOK signed char wd_char_literal(const char *body) {
  if (body[0] != '\\')
    return (signed char)body[0];
  const char *p = body + 1;
  switch (*p) {
  case 'n': return '\n';
  case 't': return '\t';
  case 'r': return '\r';
  case 'a': return '\a';
  case 'b': return '\b';
  case 'f': return '\f';
  case 'v': return '\v';
  case 'x': {
    unsigned value = 0;
    for (p++; wd_digit_value(*p) < 16; p++)
      value = value * 16 + (unsigned)wd_digit_value(*p);
    return (signed char)value;
  }
  default:
    if (*p >= '0' && *p <= '7') {
      unsigned value = 0;
      for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++, p++)
        value = value * 8 + (unsigned)(*p - '0');
      return (signed char)value;
    }
    return (signed char)*p;
  }
}

static WD_HOOK int wd_is_float_text(const char *digits) {
  return strpbrk(digits, ".eE") != NULL || strncasecmp(digits, "inf", 3) == 0 ||
         strncasecmp(digits, "nan", 3) == 0;
}

/* A floating-point value for an integer type: truncated toward zero to a
 * 128-bit two's-complement integer, of which the caller keeps the low bits
 * (what (unsigned __int128)x and (unsigned __int128)(__int128)x give with
 * libgcc on x86-64).  NaN, the infinities and values outside
 * [-2^127, 2^128) give 0.  Without a 128-bit type (32-bit x86) the value is
 * first reduced modulo 2^64 (fmodl is exact), so both targets give the same
 * low 64 bits; walkdown's interpreter does the same (InputValue). */
#ifndef __SIZEOF_INT128__
/* Whether the last floating-point value converted was non-zero as a 128-bit
 * integer (its low 64 bits may all be 0): what a _Bool input tests. */
static int wd_float_wide_nonzero;
#endif

static WD_HOOK wd_ubig wd_float_bits(long double value) {
  if (!(value >= -0x1p127L && value < 0x1p128L))
    return 0;
#ifndef __SIZEOF_INT128__
  wd_float_wide_nonzero = value >= 1 || value <= -1;
  value = fmodl(value, 0x1p64L);
  if (value < 0)
    return (wd_ubig)0 - (wd_ubig)(-value);
  return (wd_ubig)value;
#else
  return value < 0 ? (wd_ubig)(wd_sbig)value : (wd_ubig)value;
#endif
}

/* The value of an integer literal as two's-complement bits.  Decimal
 * floating-point text converts like a cast: truncated toward zero. */
static WD_HOOK wd_ubig wd_integer_value(const char *text) {
  if (text[0] == '\'')
    return (wd_ubig)(wd_sbig)wd_char_literal(text + 1);
  if (strcasecmp(text, "true") == 0)
    return 1;
  if (strcasecmp(text, "false") == 0)
    return 0;
  const char *p = text;
  int negative = *p == '-';
  if (*p == '-' || *p == '+')
    p++;
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
    base = 2;
    p += 2;
  } else if (wd_is_float_text(p)) {
    return wd_float_bits(strtold(text, NULL));
  }
  wd_ubig magnitude = 0;
  for (; wd_digit_value(*p) < base; p++)
    magnitude = magnitude * (wd_ubig)base + (wd_ubig)wd_digit_value(*p);
  return negative ? (wd_ubig)0 - magnitude : magnitude;
}

static WD_HOOK long double wd_floating_value(const char *text) {
  if (text[0] == '\'')
    return (long double)wd_char_literal(text + 1);
  if (strcasecmp(text, "true") == 0)
    return 1;
  if (strcasecmp(text, "false") == 0)
    return 0;
  /* strtold reads decimal and hex floats, inf and nan, and stops at a
   * suffix such as f or L. */
  return strtold(text, NULL);
}

/* ---------------------------------------------------------------- */
/* typed nondet functions                                             */
/* ---------------------------------------------------------------- */

/* The next value as `size` bytes of a (possibly signed) integer type,
 * sign-extended back to the widest type. */
static WD_HOOK wd_ubig wd_next_integer(int size, int is_signed) {
  const char *text = wd_next_text();
  wd_ubig bits = text ? wd_integer_value(text) : 0;
  if ((size_t)size < sizeof(wd_ubig)) {
    wd_ubig mask = ((wd_ubig)1 << (8 * size)) - 1;
    bits &= mask;
    if (is_signed && (bits >> (8 * size - 1)) & 1)
      bits |= ~mask;
  }
  return bits;
}

#define WD_NONDET_INTEGER(NAME, TYPE, SIGNED)                                 \
  WD_WEAK TYPE __VERIFIER_nondet_##NAME(void) {                               \
    return (TYPE)wd_next_integer((int)sizeof(TYPE), SIGNED);                  \
  }

WD_NONDET_INTEGER(char, char, (char)-1 < 0)
WD_NONDET_INTEGER(schar, signed char, 1)
WD_NONDET_INTEGER(uchar, unsigned char, 0)
WD_NONDET_INTEGER(unsigned_char, unsigned char, 0)
WD_NONDET_INTEGER(short, short, 1)
WD_NONDET_INTEGER(ushort, unsigned short, 0)
WD_NONDET_INTEGER(unsigned_short, unsigned short, 0)
WD_NONDET_INTEGER(int, int, 1)
WD_NONDET_INTEGER(uint, unsigned int, 0)
WD_NONDET_INTEGER(unsigned, unsigned int, 0)
WD_NONDET_INTEGER(unsigned_int, unsigned int, 0)
WD_NONDET_INTEGER(long, long, 1)
WD_NONDET_INTEGER(ulong, unsigned long, 0)
WD_NONDET_INTEGER(unsigned_long, unsigned long, 0)
WD_NONDET_INTEGER(longlong, long long, 1)
WD_NONDET_INTEGER(ulonglong, unsigned long long, 0)
WD_NONDET_INTEGER(size_t, size_t, 0)
WD_NONDET_INTEGER(ssize_t, ssize_t, 1)
WD_NONDET_INTEGER(loff_t, long long, 1)
WD_NONDET_INTEGER(sector_t, unsigned long, 0)
WD_NONDET_INTEGER(pthread_t, unsigned long, 0)
WD_NONDET_INTEGER(u8, uint8_t, 0)
WD_NONDET_INTEGER(u16, uint16_t, 0)
WD_NONDET_INTEGER(u32, uint32_t, 0)
WD_NONDET_INTEGER(U32, uint32_t, 0)
WD_NONDET_INTEGER(u64, uint64_t, 0)
WD_NONDET_INTEGER(s8, int8_t, 1)
WD_NONDET_INTEGER(s16, int16_t, 1)
WD_NONDET_INTEGER(s32, int32_t, 1)
WD_NONDET_INTEGER(s64, int64_t, 1)
#ifdef __SIZEOF_INT128__
WD_NONDET_INTEGER(int128, __int128, 1)
WD_NONDET_INTEGER(uint128, unsigned __int128, 0)
#endif

/* Pointers: an integer as wide as a pointer, converted. */
WD_WEAK void *__VERIFIER_nondet_pointer(void) {
  return (void *)(uintptr_t)wd_next_integer((int)sizeof(void *), 0);
}
WD_WEAK char *__VERIFIER_nondet_pchar(void) {
  return (char *)(uintptr_t)wd_next_integer((int)sizeof(void *), 0);
}
WD_WEAK char *__VERIFIER_nondet_charp(void) {
  return (char *)(uintptr_t)wd_next_integer((int)sizeof(void *), 0);
}

/* A _Bool is true when the value, as a 128-bit integer, is not 0. */
static WD_HOOK _Bool wd_next_bool(void) {
#ifndef __SIZEOF_INT128__
  wd_float_wide_nonzero = 0;
  return wd_next_integer(16, 0) != 0 || wd_float_wide_nonzero;
#else
  return wd_next_integer(16, 0) != 0;
#endif
}

WD_WEAK _Bool __VERIFIER_nondet_bool(void) { return wd_next_bool(); }
WD_WEAK _Bool __VERIFIER_nondet__Bool(void) { return wd_next_bool(); }

WD_WEAK float __VERIFIER_nondet_float(void) {
  const char *text = wd_next_text();
  return text ? (float)wd_floating_value(text) : 0.0f;
}
WD_WEAK double __VERIFIER_nondet_double(void) {
  const char *text = wd_next_text();
  return text ? (double)wd_floating_value(text) : 0.0;
}

/* A whole line as a string, without surrounding double quotes. */
WD_WEAK char *__VERIFIER_nondet_string(void) {
  const char *text = wd_next_text();
  if (!text)
    text = "";
  size_t length = strlen(text);
  if (length >= 2 && text[0] == '"' && text[length - 1] == '"') {
    text++;
    length -= 2;
  }
  char *copy = calloc(length + 1, 1);
  if (copy)
    memcpy(copy, text, length);
  return copy;
}

/* Fills memory one nondet unsigned char per byte. */
WD_WEAK void __VERIFIER_nondet_memory(void *memory, size_t size) {
  unsigned char *bytes = memory;
  for (size_t i = 0; i < size; i++)
    bytes[i] = (unsigned char)wd_next_integer(1, 0);
}

/* ---------------------------------------------------------------- */
/* assume, errors, annotations                                        */
/* ---------------------------------------------------------------- */

WD_WEAK void __VERIFIER_assume(int condition) {
  if (!condition) {
    wd_assume_failed = 1;
    exit(0);
  }
}

static WD_HOOK void wd_reach_error_now(void) __attribute__((noreturn));
static WD_HOOK void wd_reach_error_now(void) {
  wd_reach_error = 1;
  wd_abort_run();
}

WD_WEAK void reach_error(void) { wd_reach_error_now(); }
WD_WEAK void __VERIFIER_error(void) { wd_reach_error_now(); }

WD_WEAK void __VERIFIER_assert(int condition) {
  if (!condition)
    reach_error();
}

WD_WEAK void __VERIFIER_atomic_begin(void) {}
WD_WEAK void __VERIFIER_atomic_end(void) {}

/* Verification annotations (DESIGN.md, "annot"): no-ops when compiled. */
WD_WEAK void __VERIFIER_assumed(int condition, const char *id) {
  (void)condition;
  (void)id;
}
WD_WEAK void __VERIFIER_assert_verified(int condition, const char *premise) {
  (void)condition;
  (void)premise;
}

/* sv-benchmarks define reach_error() as __assert_fail("0", FILE, LINE,
 * "reach_error"): the fourth argument tells an error call from a failed
 * assert(). */
WD_WEAK void __assert_fail(const char *assertion, const char *file, unsigned int line,
                           const char *function) __attribute__((noreturn));
WD_WEAK void __assert_fail(const char *assertion, const char *file, unsigned int line,
                           const char *function) {
  fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file ? file : "?", line,
          function ? function : "?", assertion ? assertion : "?");
  if (function && strcmp(function, "reach_error") == 0)
    wd_reach_error = 1;
  else
    wd_assert_fail = 1;
  wd_abort_run();
}

/* Called on entry of every function of a task built with
 * -finstrument-functions.  Comparing with the address of the (weak)
 * reach_error symbol finds the task's own definition exactly; the body then
 * runs on as written, and whatever it does, the run has reached the error. */
WD_HOOK void __cyg_profile_func_enter(void *function, void *call_site) {
  (void)call_site;
  if (function == (void *)reach_error || function == (void *)__VERIFIER_error)
    wd_reach_error = 1;
}

WD_HOOK void __cyg_profile_func_exit(void *function, void *call_site) {
  (void)function;
  (void)call_site;
}

/* ---------------------------------------------------------------- */
/* what the sandbox denied (see the top of the file)                  */
/* ---------------------------------------------------------------- */

/* Forks of the whole run, counted in a page its processes share. */
static unsigned *wd_forks;
static unsigned wd_max_forks;

static WD_HOOK void wd_start_fork_budget(void) {
  const char *max = getenv("WD_MAX_FORKS");
  if (!max || !*max)
    return;
  wd_max_forks = (unsigned)strtoul(max, NULL, 10);
  void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED)
    wd_forks = page;
}

#ifndef WD_STANDALONE
/* A standalone driver is built without the wraps: it notes nothing. */
static WD_HOOK const char *wd_errno_name(int error) {
  switch (error) {
  case EROFS: return "EROFS";
  case EACCES: return "EACCES";
  case EPERM: return "EPERM";
  case ENOENT: return "ENOENT";
  case EAGAIN: return "EAGAIN";
  case ECONNREFUSED: return "ECONNREFUSED";
  case ENETUNREACH: return "ENETUNREACH";
  case EHOSTUNREACH: return "EHOSTUNREACH";
  case ENETDOWN: return "ENETDOWN";
  case ETIMEDOUT: return "ETIMEDOUT";
  case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
  default: return "EOTHER";
  }
}

/* Notes a denial once (a loop that forks or writes again adds nothing). */
static WD_HOOK void wd_note(const char *action, int error, const char *subject) {
  const char *name = wd_errno_name(error);
  char text[WD_SUBJECT_MAX];
  size_t k = 0;
  for (; subject && subject[k] && k + 1 < WD_SUBJECT_MAX; k++)
    text[k] = subject[k] == '\n' || subject[k] == '\r' ? '?' : subject[k];
  text[k] = 0;
  int count = wd_denied_count;
  for (int i = 0; i < count; i++)
    if (wd_denied[i].action == action && wd_denied[i].error == name && strcmp(wd_denied[i].subject, text) == 0)
      return;
  if (count >= WD_MAX_DENIED)
    return;
  wd_denied[count].action = action;
  wd_denied[count].error = name;
  memcpy(wd_denied[count].subject, text, k + 1);
  wd_denied_count = count + 1;
}

/* Whether an absolute `path` lies under a directory the sandbox hides
 * (and not in the run's own directory, which lies under one). */
static WD_HOOK int wd_hidden(const char *path) {
  const char *hidden = getenv("WD_HIDDEN");
  if (!path || path[0] != '/' || !hidden)
    return 0;
  char cwd[4096];
  size_t cwd_len = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
  if (cwd_len && strncmp(path, cwd, cwd_len) == 0 && (path[cwd_len] == '/' || path[cwd_len] == 0))
    return 0;
  while (*hidden) {
    size_t len = strcspn(hidden, ":");
    if (len && strncmp(path, hidden, len) == 0 && (path[len] == '/' || path[len] == 0))
      return 1;
    hidden += len + (hidden[len] == ':');
  }
  return 0;
}

/* After a call on `path` that did `action`: notes it when it failed the
 * way the sandbox makes calls fail.  Keeps errno. */
static WD_HOOK void wd_check_path(int failed, const char *action, const char *path) {
  if (!failed)
    return;
  int error = errno;
  if (error == EROFS || error == EACCES || error == EPERM || (error == ENOENT && wd_hidden(path)))
    wd_note(action, error, path);
  errno = error;
}

static WD_HOOK int wd_open_writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

static WD_HOOK int wd_fopen_writes(const char *mode) {
  return mode && strpbrk(mode, "wa+") != NULL;
}

/* The mode argument of open: there only with O_CREAT or O_TMPFILE. */
#define WD_OPEN_MODE(flags, last)                                                        \
  unsigned mode = 0;                                                                     \
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                           \
    va_list ap;                                                                          \
    va_start(ap, last);                                                                  \
    mode = va_arg(ap, unsigned);                                                         \
    va_end(ap);                                                                          \
  }

#define WD_WRAP_OPEN(NAME)                                                               \
  extern int __real_##NAME(const char *, int, ...);                                      \
  WD_HOOK int __wrap_##NAME(const char *path, int flags, ...) {                          \
    WD_OPEN_MODE(flags, flags)                                                           \
    int fd = __real_##NAME(path, flags, mode);                                           \
    if (wd_open_writes(flags))                                                           \
      wd_check_path(fd < 0, "write", path);                                              \
    return fd;                                                                           \
  }
WD_WRAP_OPEN(open)
WD_WRAP_OPEN(open64)

#define WD_WRAP_OPENAT(NAME)                                                             \
  extern int __real_##NAME(int, const char *, int, ...);                                 \
  WD_HOOK int __wrap_##NAME(int dir, const char *path, int flags, ...) {                 \
    WD_OPEN_MODE(flags, flags)                                                           \
    int fd = __real_##NAME(dir, path, flags, mode);                                      \
    if (wd_open_writes(flags))                                                           \
      wd_check_path(fd < 0, "write", path);                                              \
    return fd;                                                                           \
  }
WD_WRAP_OPENAT(openat)
WD_WRAP_OPENAT(openat64)

#define WD_WRAP_CREAT(NAME)                                                              \
  extern int __real_##NAME(const char *, mode_t);                                        \
  WD_HOOK int __wrap_##NAME(const char *path, mode_t mode) {                             \
    int fd = __real_##NAME(path, mode);                                                  \
    wd_check_path(fd < 0, "write", path);                                                \
    return fd;                                                                           \
  }
WD_WRAP_CREAT(creat)
WD_WRAP_CREAT(creat64)

#define WD_WRAP_FOPEN(NAME)                                                              \
  extern FILE *__real_##NAME(const char *, const char *);                                \
  WD_HOOK FILE *__wrap_##NAME(const char *path, const char *mode) {                      \
    FILE *file = __real_##NAME(path, mode);                                              \
    if (wd_fopen_writes(mode))                                                           \
      wd_check_path(file == NULL, "write", path);                                        \
    return file;                                                                         \
  }
WD_WRAP_FOPEN(fopen)
WD_WRAP_FOPEN(fopen64)

#define WD_WRAP_FREOPEN(NAME)                                                            \
  extern FILE *__real_##NAME(const char *, const char *, FILE *);                        \
  WD_HOOK FILE *__wrap_##NAME(const char *path, const char *mode, FILE *stream) {        \
    FILE *file = __real_##NAME(path, mode, stream);                                      \
    if (path && wd_fopen_writes(mode))                                                   \
      wd_check_path(file == NULL, "write", path);                                        \
    return file;                                                                         \
  }
WD_WRAP_FREOPEN(freopen)
WD_WRAP_FREOPEN(freopen64)

/* Calls of one path argument (and maybe others after it). */
#define WD_WRAP_PATH(NAME, ACTION, PARAMS, ARGS, PATH)                                   \
  extern int __real_##NAME PARAMS;                                                       \
  WD_HOOK int __wrap_##NAME PARAMS {                                                     \
    int result = __real_##NAME ARGS;                                                     \
    wd_check_path(result < 0, ACTION, PATH);                                             \
    return result;                                                                       \
  }
WD_WRAP_PATH(unlink, "delete", (const char *path), (path), path)
WD_WRAP_PATH(unlinkat, "delete", (int dir, const char *path, int flags), (dir, path, flags), path)
WD_WRAP_PATH(remove, "delete", (const char *path), (path), path)
WD_WRAP_PATH(rmdir, "delete", (const char *path), (path), path)
WD_WRAP_PATH(rename, "delete", (const char *from, const char *to), (from, to), from)
WD_WRAP_PATH(renameat, "delete", (int fd, const char *from, int to_fd, const char *to), (fd, from, to_fd, to),
             from)
WD_WRAP_PATH(mkdir, "write", (const char *path, mode_t mode), (path, mode), path)
WD_WRAP_PATH(mkdirat, "write", (int dir, const char *path, mode_t mode), (dir, path, mode), path)
WD_WRAP_PATH(truncate, "write", (const char *path, off_t size), (path, size), path)
WD_WRAP_PATH(truncate64, "write", (const char *path, long long size), (path, size), path)
WD_WRAP_PATH(link, "write", (const char *from, const char *to), (from, to), to)
WD_WRAP_PATH(symlink, "write", (const char *target, const char *path), (target, path), path)

/* `addr` in words: 127.0.0.1:9, [::1]:9, a socket's path. */
static WD_HOOK void wd_address(const struct sockaddr *addr, socklen_t len, char *text, size_t size) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    snprintf(text, size, "%s:%u", host, ntohs(in->sin_port));
  } else if (addr && addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in = (const struct sockaddr_in6 *)addr;
    inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
    snprintf(text, size, "[%s]:%u", host, ntohs(in->sin6_port));
  } else if (addr && addr->sa_family == AF_UNIX) {
    const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
    snprintf(text, size, "unix socket %.100s", un->sun_path[0] ? un->sun_path : "(abstract)");
  } else {
    snprintf(text, size, "address family %d", addr ? addr->sa_family : -1);
  }
}

extern int __real_connect(int, const struct sockaddr *, socklen_t);
WD_HOOK int __wrap_connect(int fd, const struct sockaddr *addr, socklen_t len) {
  int result = __real_connect(fd, addr, len);
  if (result < 0) {
    int error = errno;
    const char *sandboxed = getenv("WD_SANDBOX");
    /* A non-blocking connection fails later, elsewhere. */
    int pending = error == EINPROGRESS || error == EINTR || error == EALREADY || error == EISCONN;
    if (!pending && ((sandboxed && strcmp(sandboxed, "1") == 0) || error == EACCES || error == EPERM)) {
      char text[WD_SUBJECT_MAX];
      wd_address(addr, len, text, sizeof text);
      wd_note("connect", error, text);
    }
    errno = error;
  }
  return result;
}

extern pid_t __real_fork(void);
WD_HOOK pid_t __wrap_fork(void) {
  if (wd_forks && __atomic_add_fetch(wd_forks, 1, __ATOMIC_SEQ_CST) > wd_max_forks) {
    wd_note("fork", EAGAIN, "");
    errno = EAGAIN;
    return -1;
  }
  pid_t child = __real_fork();
  if (child < 0) {
    int error = errno;
    if (error == EAGAIN)
      wd_note("fork", error, "");
    errno = error;
  }
  return child;
}
#endif
