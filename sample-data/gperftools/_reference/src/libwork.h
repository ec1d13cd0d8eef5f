#ifndef LIBWORK_H
#define LIBWORK_H
unsigned long work_checksum(unsigned long seed, long iters);
#endif
