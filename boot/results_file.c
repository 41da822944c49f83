/* boot/results_file.c - see results_file.h. */
#include "boot/boot.h"
#include "boot/results_file.h"
#include "lib/decimal.h"
#include "lib/heap.h"
#include "net/efi_status.h"
#include "lib/out.h"

#define RESULTS_DIR L"\\pmuboot"
#define RESULTS_DIR_ASCII "\\pmuboot"
#define NAME_PREFIX "results-"
#define NAME_SUFFIX ".jsonl"
#define NAME_MAX_NUMBER 99999999u
#define CREATE_ATTEMPTS 8		/* numbers tried when a name turns out to be taken */
#define PATH_CHARS 48
#define DIR_ENTRY_BUF 1024		/* one EFI_FILE_INFO with a long file name */
#define HELD_MAX 16384			/* records held while interrupts are off */
#define RFLAGS_IF (1ull << 9)		/* SDM vol. 1 §3.4.3: interrupt enable flag */

enum rf_state { RF_OFF, RF_SAVING, RF_FAILED };

static struct {
	enum rf_state state;
	EFI_FILE_HANDLE root, dir, file;
	char path[PATH_CHARS];
	const char *why;		/* why records are not (or no longer) saved */
	EFI_STATUS status;		/* the firmware's answer behind `why`, or EFI_SUCCESS */
	uint64_t size;			/* bytes of whole records on the medium */
	uint32_t records;
	bool busy;			/* inside a firmware call: a nested line is held */
	char *held;			/* from the heap: a static buffer would grow the .efi */
	size_t held_len;
	uint32_t held_dropped;
} rf;


/* UEFI 2.10 appendix D: what the statuses a file system reports mean here (their names: net/efi_status.h). */
static const struct {
	EFI_STATUS status;
	const char *meaning;
} meanings[] = {
	{ EFI_WRITE_PROTECTED, "the boot medium is read-only" },
	{ EFI_VOLUME_FULL, "the boot medium is full" },
	{ EFI_ACCESS_DENIED, "the firmware refused write access to the boot medium" },
	{ EFI_MEDIA_CHANGED, "the boot medium was changed" },
	{ EFI_NO_MEDIA, "the boot medium was removed" },
	{ EFI_DEVICE_ERROR, "the boot medium reported a device error" },
	{ EFI_VOLUME_CORRUPTED, "the file system on the boot medium is damaged" },
	{ EFI_UNSUPPORTED, "the boot medium's file system does not support writing" },
	{ EFI_OUT_OF_RESOURCES, "the firmware ran out of memory" },
	{ EFI_NOT_FOUND, "the firmware could not find the file system" },
};

static const char *status_meaning(EFI_STATUS st)
{
	for (size_t i = 0; i < ARRAY_SIZE(meanings); i++)
		if (meanings[i].status == st)
			return meanings[i].meaning;
	return "the firmware could not write to the boot medium";
}

static bool interrupts_enabled(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return flags & RFLAGS_IF;
}

static void set_failure(EFI_STATUS st, const char *why)
{
	rf.status = st;
	rf.why = why ? why : status_meaning(st);
}

static void close_all(void)
{
	if (rf.file)
		rf.file->Close(rf.file);
	if (rf.dir)
		rf.dir->Close(rf.dir);
	if (rf.root)
		rf.root->Close(rf.root);
	rf.file = rf.dir = rf.root = NULL;
}

/* What the volume says of itself (UEFI 2.10 §13.5.17); false when it does not say (writing will tell). */
static bool volume_info(EFI_FILE_HANDLE root, bool *read_only, uint64_t *free_bytes)
{
	static EFI_GUID fs_info_guid = EFI_FILE_SYSTEM_INFO_ID;
	union {
		EFI_FILE_SYSTEM_INFO info;
		uint8_t bytes[DIR_ENTRY_BUF];
	} buf;
	UINTN size = sizeof(buf);
	if (root->GetInfo(root, &fs_info_guid, &size, &buf) != EFI_SUCCESS)
		return false;
	*read_only = buf.info.ReadOnly;
	*free_bytes = buf.info.FreeSpace;
	return true;
}

/* The number in "results-NNNN.jsonl" (any case), or 0 when the name is not one of ours. */
static uint32_t results_number(const CHAR16 *wname)
{
	char name[PATH_CHARS];
	size_t plen = sizeof(NAME_PREFIX) - 1, slen = sizeof(NAME_SUFFIX) - 1;
	fw_ascii(name, sizeof(name), wname);
	size_t n = strlen(name);
	uint64_t v;
	if (n <= plen + slen || !lc_eq_ci_n(name, plen, NAME_PREFIX) || !lc_eq_ci_n(name + n - slen, slen, NAME_SUFFIX))
		return 0;
	return dec_whole(name + plen, n - plen - slen, NAME_MAX_NUMBER, &v) ? (uint32_t)v : 0;
}

static uint32_t highest_number(EFI_FILE_HANDLE dir)
{
	union {
		EFI_FILE_INFO info;
		uint8_t bytes[DIR_ENTRY_BUF];
	} buf;
	uint32_t best = 0;

	dir->SetPosition(dir, 0);
	for (;;) {
		UINTN size = sizeof(buf);
		/* A longer name than the buffer returns EFI_BUFFER_TOO_SMALL without moving on: stop there. */
		if (dir->Read(dir, &size, &buf) != EFI_SUCCESS || size == 0)
			break;
		uint32_t k = results_number(buf.info.FileName);
		if (k > best)
			best = k;
	}
	return best;
}

static void to_ucs2(CHAR16 *dst, const char *src, size_t cap)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (CHAR16)(unsigned char)src[i];
	dst[i] = 0;
}

/* Create the next file in the open directory; false with the failure recorded. */
static bool create_next(void)
{
	char name[PATH_CHARS];
	CHAR16 wname[PATH_CHARS];
	uint32_t next = highest_number(rf.dir) + 1;

	for (int attempt = 0; attempt < CREATE_ATTEMPTS; attempt++, next++) {
		if (next > NAME_MAX_NUMBER) {
			set_failure(EFI_SUCCESS, "\\pmuboot holds the highest results number already");
			return false;
		}
		snprintf(name, sizeof(name), NAME_PREFIX "%04u" NAME_SUFFIX, next);
		to_ucs2(wname, name, PATH_CHARS);
		EFI_FILE_HANDLE f = NULL;
		/* Never overwrite: a name that opens read-only is taken. */
		if (rf.dir->Open(rf.dir, &f, wname, EFI_FILE_MODE_READ, 0) == EFI_SUCCESS) {
			f->Close(f);
			continue;
		}
		EFI_STATUS st = rf.dir->Open(rf.dir, &f, wname, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
					     EFI_FILE_MODE_CREATE, 0);
		if (st != EFI_SUCCESS) {
			set_failure(st, NULL);
			return false;
		}
		rf.file = f;
		snprintf(rf.path, sizeof(rf.path), RESULTS_DIR_ASCII "\\%s", name);
		return true;
	}
	set_failure(EFI_SUCCESS, "no free results-NNNN.jsonl name was found");
	return false;
}

static void results_line(void *ctx, enum out_kind kind, const char *line, size_t len);

void results_file_attach(bool save)
{
	memset(&rf, 0, sizeof(rf));
	rf.state = RF_OFF;
	if (!save) {
		rf.why = "save=off";
		return;
	}
	rf.held = heap_alloc(HELD_MAX, 16);
	if (!rf.held) {
		rf.why = "no memory for the results file's buffer";
		return;
	}
	rf.root = fw_open_boot_volume();
	if (!rf.root) {
		rf.why = "the boot medium has no file system the firmware can open";
		return;
	}
	bool read_only = false;
	uint64_t free_bytes = 0;
	if (volume_info(rf.root, &read_only, &free_bytes) && (read_only || free_bytes == 0)) {
		/* A file created now could only stay empty: none is made, and the begin record says why. */
		set_failure(read_only ? EFI_WRITE_PROTECTED : EFI_VOLUME_FULL,
			    read_only ? NULL : "the boot medium is full (0 bytes free): nothing is saved");
		close_all();
		return;
	}
	EFI_STATUS st = rf.root->Open(rf.root, &rf.dir, RESULTS_DIR,
				      EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, EFI_FILE_DIRECTORY);
	if (st != EFI_SUCCESS) {
		rf.dir = NULL;
		set_failure(st, NULL);
		close_all();
		return;
	}
	if (!create_next()) {
		close_all();
		return;
	}
	struct out_sink sink = { .name = "results", .write_line = results_line, .ctx = NULL, .records_only = true };
	if (!out_add_sink(&sink)) {
		/* Nothing can be written: the file just made goes again (Delete closes it), none is left empty. */
		set_failure(EFI_SUCCESS, "no room for another output sink");
		rf.file->Delete(rf.file);
		rf.file = NULL;
		close_all();
		return;
	}
	rf.state = RF_SAVING;
}

/* Cut the file back to its last whole record after a failed write (best effort). */
static void truncate_to_whole_records(void)
{
	static EFI_GUID file_info_guid = EFI_FILE_INFO_ID;
	union {
		EFI_FILE_INFO info;
		uint8_t bytes[DIR_ENTRY_BUF];
	} buf;
	UINTN size = sizeof(buf);
	if (rf.file->GetInfo(rf.file, &file_info_guid, &size, &buf) != EFI_SUCCESS)
		return;
	if (buf.info.FileSize > rf.size) {
		buf.info.FileSize = rf.size;
		rf.file->SetInfo(rf.file, &file_info_guid, size, &buf);
	}
}

static bool is_end_record(const char *json, size_t len)
{
	static const char end_head[] = "{\"type\":\"end\"";
	return len >= sizeof(end_head) - 1 && memcmp(json, end_head, sizeof(end_head) - 1) == 0;
}

/*
 * Stop saving and say so.  The note is emitted from inside the sink (this
 * sink ignores it, being stopped); the sinks before this one (serial,
 * screen) see it right after the record whose write failed.  After the end
 * record a note would fall outside the run, so then only a text line says it.
 */
static void fail_midrun(EFI_STATUS st, bool after_end)
{
	struct rec note;
	struct rec *r = &note;

	rf.state = RF_FAILED;
	set_failure(st, NULL);
	truncate_to_whole_records();
	bool removed = false;
	if (rf.records == 0) {
		/* Not one record fit: an empty file would only look like a run that saved nothing by mistake. */
		removed = rf.file->Delete(rf.file) == EFI_SUCCESS;	/* Delete closes the handle either way */
		rf.file = NULL;
	} else {
		rf.file->Flush(rf.file);
	}
	close_all();
	if (rf.records == 0)
		out_text("warning: results file %s: %s (%s); nothing was saved%s, the serial capture has all", rf.path,
			 rf.why, efi_status_name(st), removed ? " and the empty file was removed" : " (an empty file is left)");
	else
		out_text("warning: results file %s: %s (%s); it holds the first %u records, the serial capture has all",
			 rf.path, rf.why, efi_status_name(st), rf.records);
	if (after_end || !rec_stream_open())
		return;
	rec_start(r, "results_file");
	rec_str(r, "file", rf.path);
	rec_bool(r, "saving", false);
	rec_u64(r, "records_saved", rf.records);
	rec_bool(r, "removed", removed);
	rec_str(r, "why", rf.why);
	rec_str(r, "efi_status", efi_status_name(st));
	rec_emit(r);
}

static EFI_STATUS write_all(const char *buf, size_t len)
{
	UINTN n = len;
	EFI_STATUS st = rf.file->Write(rf.file, &n, (void *)buf);
	if (st == EFI_SUCCESS && n != len)
		st = EFI_VOLUME_FULL;	/* a short write with success: the volume filled */
	if (st == EFI_SUCCESS)
		st = rf.file->Flush(rf.file);
	return st;
}

static void hold(const char *json, size_t len)
{
	if (rf.held_len + len + 1 > HELD_MAX) {
		rf.held_dropped++;
		return;
	}
	memcpy(rf.held + rf.held_len, json, len);
	rf.held[rf.held_len + len] = '\n';
	rf.held_len += len + 1;
}

/* Write what was held, one record at a time so `size` stays on a record boundary. */
static EFI_STATUS write_held(void)
{
	char *held = rf.held;
	size_t start = 0;
	for (size_t i = 0; i < rf.held_len; i++) {
		if (held[i] != '\n')
			continue;
		EFI_STATUS st = write_all(held + start, i + 1 - start);
		if (st != EFI_SUCCESS) {
			memmove(held, held + start, rf.held_len - start);
			rf.held_len -= start;
			return st;
		}
		rf.size += i + 1 - start;
		rf.records++;
		start = i + 1;
	}
	rf.held_len = 0;
	return EFI_SUCCESS;
}

static void results_line(void *ctx, enum out_kind kind, const char *line, size_t len)
{
	(void)ctx;
	if (rf.state != RF_SAVING || kind != OUT_RECORD)
		return;
	/* The file holds bare JSON: the line without its "@pmuboot " prefix. */
	size_t plen = sizeof(REC_PREFIX) - 1;
	if (len >= plen && memcmp(line, REC_PREFIX, plen) == 0) {
		line += plen;
		len -= plen;
	}
	bool end = is_end_record(line, len);
	hold(line, len);
	if (rf.busy || !interrupts_enabled())
		return;
	rf.busy = true;
	EFI_STATUS st = write_held();
	rf.busy = false;
	if (st != EFI_SUCCESS)
		fail_midrun(st, end);
}

void results_file_record(struct rec *r)
{
	rec_obj(r, "results");
	if (rf.state == RF_SAVING) {
		rec_str(r, "file", rf.path);
	} else {
		rec_null(r, "file");
		rec_str(r, "why", rf.why);
		if (rf.status != EFI_SUCCESS)
			rec_str(r, "efi_status", efi_status_name(rf.status));
	}
	rec_obj_end(r);
}

void results_file_announce(void)
{
	if (rf.state == RF_SAVING)
		out_text("results: saving the records to %s on the boot medium", rf.path);
	else if (rf.status != EFI_SUCCESS)
		out_text("note: the records are not saved on the boot medium: %s (%s); the serial capture has them",
			 rf.why, efi_status_name(rf.status));
	else
		out_text("note: the records are not saved on the boot medium: %s", rf.why);
}

void results_file_close(void)
{
	if (rf.state != RF_SAVING)
		return;
	if (rf.busy) {
		/*
		 * A fault ended the run inside one of our firmware calls: the file
		 * system driver may hold its lock or a raised TPL, so it is not
		 * called again.  What was flushed before stays on the medium.
		 */
		out_text("warning: results file %s: a fault interrupted a write; it holds the first %u records",
			 rf.path, rf.records);
		out_remove_sink("results");
		rf.state = RF_OFF;
		return;
	}
	if (interrupts_enabled() && rf.held_len) {
		EFI_STATUS st = write_held();
		if (st != EFI_SUCCESS) {
			fail_midrun(st, true);
			return;
		}
	}
	uint32_t lost = rf.held_dropped;
	for (size_t i = 0; i < rf.held_len; i++)
		lost += rf.held[i] == '\n';
	if (lost)
		out_text("warning: results file %s: %u records emitted with interrupts off could not be saved",
			 rf.path, lost);
	out_remove_sink("results");
	rf.state = RF_OFF;
	rf.why = "closed";
	close_all();
}
