/* Preloaded (LD_PRELOAD) into the gcov build of a tool while a test is
   replayed: on SIGTERM, which the replay sends to a test that runs past its
   time limit, the tool exits through exit(), so that libgcov's destructor
   still writes the coverage counters of that run.  The tool's code is not
   changed.  Exit status 124, as timeout(1) uses. */

#include <signal.h>
#include <stdlib.h>

static void
on_term (int sig)
{
  (void) sig;
  exit (124);
}

__attribute__ ((constructor)) static void
install (void)
{
  signal (SIGTERM, on_term);
}
