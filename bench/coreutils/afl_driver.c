/* AFL++ driver for one command-line tool of the coreutils benchmark.

   The tool's own main unit is compiled with -Dmain=tool_main and linked
   with this file, which turns one AFL input into the tool's arguments and
   standard input, then calls tool_main.  The mapping (see README.md):

     byte 0            k = byte0 % (WD_ARGS + 1): the number of arguments
     then k arguments  each runs to the next NUL byte (or the end of the
                       input); only its first WD_ARG_LEN bytes are kept; an
                       argument the input ran out before is empty
     the rest          standard input, of which the first WD_STDIN bytes
                       are kept

   An empty input means no arguments and empty standard input.  argv[0] is
   WD_TOOL (the tool's name).  Standard input is a pipe holding those bytes,
   closed at its writing end, so the tool reads them and then end of file.

   The input is read from the file named by the driver's first argument
   (AFL's @@), or from standard input when there is none.

   bench/coreutils/run.py's decode() implements the same mapping to write
   AFL's queue as JSON tests; keep the two in step. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef WD_TOOL
#error "compile with -DWD_TOOL='\"name\"'"
#endif
#ifndef WD_ARGS
#define WD_ARGS 3
#endif
#ifndef WD_ARG_LEN
#define WD_ARG_LEN 8
#endif
#ifndef WD_STDIN
#define WD_STDIN 32
#endif

#define WD_MAX_INPUT (1 << 20)

int tool_main (int argc, char **argv);

static unsigned char input[WD_MAX_INPUT];
static char arg_bytes[WD_ARGS][WD_ARG_LEN + 1];
static char *tool_argv[WD_ARGS + 2];

static void
die (const char *what)
{
  fprintf (stderr, "afl_driver: %s: %s\n", what, strerror (errno));
  _exit (111);
}

static size_t
read_all (int fd)
{
  size_t n = 0;
  for (;;)
    {
      ssize_t r = read (fd, input + n, sizeof input - n);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          die ("read");
        }
      if (r == 0 || (n += (size_t) r) == sizeof input)
        return n;
    }
}

int
main (int argc, char **argv)
{
  size_t n;
  if (argc > 1)
    {
      int fd = open (argv[1], O_RDONLY);
      if (fd < 0)
        die (argv[1]);
      n = read_all (fd);
      close (fd);
    }
  else
    n = read_all (0);

  size_t pos = 0;
  int k = 0;
  if (n > 0)
    {
      k = input[0] % (WD_ARGS + 1);
      pos = 1;
    }
  tool_argv[0] = (char *) WD_TOOL;
  for (int i = 0; i < k; i++)
    {
      size_t len = 0;
      while (pos < n && input[pos] != 0)
        {
          if (len < WD_ARG_LEN)
            arg_bytes[i][len++] = (char) input[pos];
          pos++;
        }
      arg_bytes[i][len] = 0;
      if (pos < n)
        pos++; /* the NUL that ends the argument */
      tool_argv[i + 1] = arg_bytes[i];
    }
  tool_argv[k + 1] = NULL;

  size_t in_len = n - pos;
  if (in_len > WD_STDIN)
    in_len = WD_STDIN;
  int p[2];
  if (pipe (p) != 0)
    die ("pipe");
  /* WD_STDIN is at most 65536 (run.py checks it): the pipe holds it all. */
  size_t done = 0;
  while (done < in_len)
    {
      ssize_t w = write (p[1], input + pos + done, in_len - done);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          die ("write");
        }
      done += (size_t) w;
    }
  close (p[1]);
  if (dup2 (p[0], 0) < 0)
    die ("dup2");
  close (p[0]);

  return tool_main (k + 1, tool_argv);
}
