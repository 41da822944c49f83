/*
 * boot/results_file.h - the run's records saved on the boot medium.
 *
 * When save=on (the default) and the medium the image was loaded from is
 * writable, every record goes to \pmuboot\results-NNNN.jsonl (one past the
 * highest number already there) as bare JSON lines, each written and flushed
 * the moment it is emitted, so a crash or a power cut loses nothing already
 * measured.  The file holds exactly the records of the serial capture, so
 * tools/pmucap reads either.
 *
 * Nothing here is fatal and nothing counts as a run error: a read-only
 * medium (a CD, BMC virtual media, a write-protected stick) is the normal
 * case for some labs, and the serial capture is complete regardless.  The
 * begin record says where the records are saved or why they are not; a
 * write that fails mid-run (a full disk) is reported by a `results_file`
 * record and the file is cut back to its last whole record.
 *
 * Records emitted while interrupts are off (a fault or NMI path) are held in
 * memory and written with the next record emitted with interrupts on, or at
 * results_file_close(): calling the firmware with interrupts off could turn
 * them back on inside a measurement window.  A record that arrives while one
 * of our own firmware calls is under way (an exception inside it) is held
 * too, and if that call never returns the firmware is not called again.
 */
#ifndef PMUBOOT_BOOT_RESULTS_FILE_H
#define PMUBOOT_BOOT_RESULTS_FILE_H

#include "lib/record.h"

/* Open the results file (when save is true) and add the records-only sink. */
void results_file_attach(bool save);
/* The "results" object of the begin record. */
void results_file_record(struct rec *r);
/* One human line saying where the records go, or why they are not saved. */
void results_file_announce(void);
/* After the end record: write what is held and close the file. */
void results_file_close(void);

#endif
