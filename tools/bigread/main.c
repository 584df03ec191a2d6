/*
 * bigread - block-by-block read speed of one file or of standard input, and
 * where it fell for good.  A thin main: the tool lives in run.c, args.c and
 * render.c (bigread.h); the figures in the core (iobench/series.h).
 */
#include "bigread.h"

int main(int argc, char **argv)
{
	iob_utf8_args(&argc, &argv);
	return bigread_main(argc, argv);
}
