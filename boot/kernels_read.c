/* boot/kernels_read.c - see kernels_read.h. */
#include "boot/boot.h"
#include "boot/kernels_read.h"
#include "lib/heap.h"
#include "bench/instr_choice.h"
#include "boot/net.h"
#include "boot/net_fetch.h"
#include "net/netcfg.h"

#define KERNELS_DIR L"\\pmuboot\\kernels"
#define KERNEL_SUFFIX ".pmuk"
#define DIR_ENTRY_BUF 1024	/* one EFI_FILE_INFO with a long file name */

static void name_ascii(char *dst, size_t cap, const CHAR16 *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[i] = 0;
}

static bool has_suffix(const char *s)
{
	size_t n = strlen(s), k = sizeof(KERNEL_SUFFIX) - 1;
	if (n <= k)
		return false;
	for (size_t i = 0; i < k; i++)
		if (lc_tolower(s[n - k + i]) != KERNEL_SUFFIX[i])
			return false;
	return true;
}

/* Read one file (size already checked) into heap memory. */
static void read_one(EFI_FILE_HANDLE dir, const EFI_FILE_INFO *info, struct ukernel_file *f)
{
	EFI_FILE_HANDLE h = NULL;
	uint8_t *buf;
	UINTN size = (UINTN)info->FileSize;

	if (info->FileSize > UK_FILE_MAX) {
		f->problem = "larger than a kernel file can be: not read";
		return;
	}
	if (!(buf = heap_alloc(size ? size : 1, 16))) {
		f->problem = "no memory to read it";
		return;
	}
	if (dir->Open(dir, &h, (CHAR16 *)info->FileName, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS) {
		f->problem = "the firmware could not open it";
		return;
	}
	EFI_STATUS st = h->Read(h, &size, buf);
	h->Close(h);
	if (st != EFI_SUCCESS || size != info->FileSize) {
		f->problem = "the firmware could not read it";
		return;
	}
	f->data = buf;
	f->len = size;
}

size_t boot_read_kernels(struct ukernel_file *files, size_t max, char *note, size_t note_cap)
{
	union {
		EFI_FILE_INFO info;
		uint8_t bytes[DIR_ENTRY_BUF];
	} buf;
	EFI_FILE_HANDLE root = fw_open_boot_volume(), dir = NULL;
	size_t n = 0, skipped = 0;

	snprintf(note, note_cap, "no %s directory on the boot medium", KERNELS_DIR_ASCII);
	if (!root)
		return 0;
	if (root->Open(root, &dir, KERNELS_DIR, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS) {
		root->Close(root);
		return 0;
	}
	for (;;) {
		UINTN size = sizeof(buf);
		/* A name longer than the buffer gives EFI_BUFFER_TOO_SMALL without moving on: stop there. */
		if (dir->Read(dir, &size, &buf) != EFI_SUCCESS || size == 0)
			break;
		if (buf.info.Attribute & EFI_FILE_DIRECTORY)
			continue;
		char name[64];
		name_ascii(name, sizeof(name), buf.info.FileName);
		if (!has_suffix(name))
			continue;
		if (n == max) {
			skipped++;
			continue;
		}
		struct ukernel_file *f = &files[n++];
		memset(f, 0, sizeof(*f));
		snprintf(f->where, sizeof(f->where), "%s\\%s", KERNELS_DIR_ASCII, name);
		read_one(dir, &buf.info, f);
	}
	dir->Close(dir);
	root->Close(root);
	snprintf(note, note_cap, "%zu kernel files in %s%s", n, KERNELS_DIR_ASCII,
		 skipped ? " (more were not read: the limit is reached)" : "");
	if (skipped && n) {
		/* The last entry says what was left out, instead of a kernel. */
		struct ukernel_file *f = &files[n - 1];
		f->data = NULL;
		f->problem = "more kernel files than the image reads (16): this one and the rest were not read";
	}
	return n;
}

#define INSTR_PACK_PATH L"\\pmuboot\\instr.pack"
/* UEFI 2.10 §13.5.1, SetPosition: this position is the end of the file. */
#define FILE_POSITION_END 0xFFFFFFFFFFFFFFFFull

/* The largest pack fetched over the network: TFTP without block-size options ends at 65535 blocks of 512. */
#define NET_PACK_MAX (32u * 1024 * 1024)
#define NET_PACK_NAME "instr.pack"

/* A network-booted image: instr.pack beside the boot file (make netboot puts it there). */
static void fetch_instr_pack(struct ukernel_file *f)
{
	const struct net_state *n = net_probe();
	char dir[NETCFG_NAME_MAX], name[NETCFG_NAME_MAX + sizeof(NET_PACK_NAME)], why[128];

	if (n->boot != NET_BOOT_PXE && n->boot != NET_BOOT_HTTP)
		return;
	netcfg_dir(n->boot == NET_BOOT_PXE ? n->boot_file : "", dir, sizeof(dir));
	snprintf(name, sizeof(name), "%s%s", dir, NET_PACK_NAME);
	uint8_t *buf = fw_alloc_pages(NET_PACK_MAX, 16);
	if (!buf) {
		f->problem = "no memory to fetch it";
		return;
	}
	long got = net_fetch(name, (char *)buf, NET_PACK_MAX, f->where, sizeof(f->where), why, sizeof(why));
	if (got == NET_FETCH_ABSENT)
		f->problem = "not on the boot server (make netboot puts it beside BOOTX64.EFI)";
	else if (got < 0)
		f->problem = "the boot server did not give it (the fetch failed)";
	else {
		f->data = buf;
		f->len = (size_t)got;
		f->problem = NULL;
	}
}

void boot_read_instr_pack(struct ukernel_file *f)
{
	EFI_FILE_HANDLE root = fw_open_boot_volume(), h = NULL;
	UINT64 size = 0;

	memset(f, 0, sizeof(*f));
	snprintf(f->where, sizeof(f->where), "%s", INSTR_PACK_PATH_ASCII);
	f->problem = "not on the boot medium (make usb, make iso and make netboot put it there)";
	if (!root) {
		fetch_instr_pack(f);
		return;
	}
	if (root->Open(root, &h, INSTR_PACK_PATH, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS) {
		root->Close(root);
		return;
	}
	f->problem = "the firmware could not read it";
	if (h->SetPosition(h, FILE_POSITION_END) == EFI_SUCCESS && h->GetPosition(h, &size) == EFI_SUCCESS &&
	    h->SetPosition(h, 0) == EFI_SUCCESS) {
		uint8_t *buf = size ? fw_alloc_pages((size_t)size, 16) : NULL;
		UINTN got = (UINTN)size;
		if (!size)
			f->problem = "empty";
		else if (!buf)
			f->problem = "no memory to read it";
		else if (h->Read(h, &got, buf) == EFI_SUCCESS && got == size) {
			f->data = buf;
			f->len = (size_t)size;
			f->problem = NULL;
		}
	}
	h->Close(h);
	root->Close(root);
}
