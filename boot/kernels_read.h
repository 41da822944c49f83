/*
 * boot/kernels_read.h - user kernel files from the boot medium.
 */
#ifndef PMUBOOT_BOOT_KERNELS_READ_H
#define PMUBOOT_BOOT_KERNELS_READ_H

#include "bench/ukernel.h"

#define KERNELS_DIR_ASCII "\\pmuboot\\kernels"
/* Files looked at, at most (more are reported as one problem entry). */
#define KERNELS_FILES_MAX 16

/*
 * Read every *.pmuk file of \pmuboot\kernels\ on the volume the image was
 * loaded from into files[0..max) (data from the run-time heap).  A file
 * that cannot be read, or is larger than a kernel file can be, is an entry
 * with data NULL and the problem.  Returns the number of entries; 0 when
 * the directory is absent.  *note says what was found, for a text line.
 */
size_t boot_read_kernels(struct ukernel_file *files, size_t max, char *note, size_t note_cap);

/*
 * Read the kernel pack of instruction forms, \pmuboot\instr.pack (bench/instr_choice.h), into pages of its
 * own (it is megabytes: not the run-time heap).  f->data NULL with f->problem when it is absent or
 * cannot be read; f->where names it either way.
 */
void boot_read_instr_pack(struct ukernel_file *f);

#endif
