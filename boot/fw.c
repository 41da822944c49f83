/* boot/fw.c - firmware services: firmware.h and the loaded-image helpers of boot.h. */
#include "boot/boot.h"
#include "platform/hw.h"
#include "platform/trap.h"
#include "lib/heap.h"
#include "lib/muldiv.h"
#include "net/devpath.h"

EFI_SYSTEM_TABLE *fw_st;
EFI_HANDLE fw_image;
EFI_LOADED_IMAGE *fw_loaded_image;

#define PAGE_SIZE_4K 4096u
#define US_PER_S 1000000u
#define PATH_MAX_CHARS 256
#define FILE_INFO_BUF (sizeof(EFI_FILE_INFO) + PATH_MAX_CHARS * sizeof(CHAR16))	/* the info and its name */

volatile bool fw_elsewhere;

/*
 * Boot services are not MP-safe: while another processor runs our code
 * (boot/mp_pass.c) every service below refuses or does its job without the
 * firmware.  The records that processor writes go to the spool (output/spool.c).
 */
#define REFUSED_ELSEWHERE(value) \
	do { \
		if (fw_elsewhere) \
			return value; \
	} while (0)

bool fw_interrupts_on(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return flags & RFLAGS_IF;
}

void fw_init(EFI_HANDLE image, EFI_SYSTEM_TABLE *st)
{
	static EFI_GUID loaded_image_guid = LOADED_IMAGE_PROTOCOL;

	fw_st = st;
	fw_image = image;
	if (st->BootServices->HandleProtocol(image, &loaded_image_guid, (void **)&fw_loaded_image) != EFI_SUCCESS)
		fw_loaded_image = NULL;
	/* Large buffers come from here, not from .data (lib/heap.h says why). */
	heap_init(fw_alloc_pages(HEAP_IMAGE_SIZE, PAGE_SIZE_4K), HEAP_IMAGE_SIZE);
}

/* The TSC's rate for a wait on another processor (fw_stall_tsc_hz); 0 until platform/ knows it. */
static uint64_t stall_tsc_hz;

void fw_stall_tsc_hz(uint64_t hz)
{
	stall_tsc_hz = hz;
}

void fw_stall_us(uint64_t us)
{
	if (fw_elsewhere) {
		/* The TSC instead (invariant on every CPU the suite measures); no wait while its rate is unknown. */
		uint64_t ticks = muldiv64(stall_tsc_hz, us, US_PER_S), end = hw_tsc() + ticks;
		while (ticks && hw_tsc() < end)
			__asm__ volatile("pause");
		return;
	}
	fw_st->BootServices->Stall(us);
}

void *fw_alloc_pages(size_t bytes, size_t align)
{
	EFI_PHYSICAL_ADDRESS addr = 0;
	size_t total = bytes + (align > PAGE_SIZE_4K ? align : 0);
	UINTN pages = (total + PAGE_SIZE_4K - 1) / PAGE_SIZE_4K;

	REFUSED_ELSEWHERE(NULL);
	if (fw_st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderData, pages, &addr) != EFI_SUCCESS)
		return NULL;
	if (align > PAGE_SIZE_4K) {
		/* Over-allocate, then give back the unaligned head and the tail. */
		EFI_PHYSICAL_ADDRESS aligned = (addr + align - 1) & ~(EFI_PHYSICAL_ADDRESS)(align - 1);
		UINTN head = (UINTN)((aligned - addr) / PAGE_SIZE_4K);
		UINTN used = (bytes + PAGE_SIZE_4K - 1) / PAGE_SIZE_4K;
		if (head)
			fw_st->BootServices->FreePages(addr, head);
		if (pages - head - used)
			fw_st->BootServices->FreePages(aligned + used * PAGE_SIZE_4K, pages - head - used);
		addr = aligned;
	}
	return (void *)(uintptr_t)addr;
}

/* Room for the descriptors that allocating the map's own buffer may add (UEFI 2.10 §7.2 GetMemoryMap). */
#define FREE_MAP_SLACK_DESCRIPTORS 8

uint64_t fw_largest_free_bytes(void)
{
	EFI_BOOT_SERVICES *bs;
	UINTN size = 0, key, desc_size = 0;
	UINT32 version;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	uint64_t best = 0, run = 0, run_end = 0;

	REFUSED_ELSEWHERE(0);
	bs = fw_st->BootServices;
	if (bs->GetMemoryMap(&size, NULL, &key, &desc_size, &version) != EFI_BUFFER_TOO_SMALL || !desc_size)
		return 0;
	size += FREE_MAP_SLACK_DESCRIPTORS * desc_size;
	if (bs->AllocatePool(EfiLoaderData, size, (void **)&map) != EFI_SUCCESS)
		return 0;
	if (bs->GetMemoryMap(&size, map, &key, &desc_size, &version) == EFI_SUCCESS) {
		for (UINTN off = 0; off + desc_size <= size; off += desc_size) {
			const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const uint8_t *)map + off);
			uint64_t bytes = d->NumberOfPages * PAGE_SIZE_4K;
			if (d->Type != EfiConventionalMemory) {
				run = 0;
				continue;
			}
			/* The map is in address order on every firmware seen; a gap starts a new run. */
			run = run && d->PhysicalStart == run_end ? run + bytes : bytes;
			run_end = d->PhysicalStart + bytes;
			if (run > best)
				best = run;
		}
	}
	bs->FreePool(map);
	return best;
}

void *fw_alloc_code_pages(size_t bytes)
{
	EFI_PHYSICAL_ADDRESS addr = 0;
	UINTN pages = (bytes + PAGE_SIZE_4K - 1) / PAGE_SIZE_4K;

	REFUSED_ELSEWHERE(NULL);
	if (fw_st->BootServices->AllocatePages(AllocateAnyPages, EfiLoaderCode, pages, &addr) != EFI_SUCCESS)
		return NULL;
	return (void *)(uintptr_t)addr;
}

void fw_free_pages(void *p, size_t bytes, size_t align)
{
	(void)align;
	REFUSED_ELSEWHERE();	/* kept until the run ends rather than freed from the wrong CPU */
	if (p)
		fw_st->BootServices->FreePages((EFI_PHYSICAL_ADDRESS)(uintptr_t)p,
					       (bytes + PAGE_SIZE_4K - 1) / PAGE_SIZE_4K);
}

struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision, checksum;
	char oem_id[6], oem_table_id[8];
	uint32_t oem_revision, creator_id, creator_revision;
} __attribute__((packed));

struct acpi_rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t ext_checksum, reserved[3];
} __attribute__((packed));

#define ACPI_RSDP_REV_XSDT 2	/* ACPI 6.5 §5.2.5.3: revision >= 2 has the XSDT address */

const void *fw_acpi_table(const char sig[4])
{
	static EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
	static EFI_GUID acpi10 = ACPI_TABLE_GUID;
	const struct acpi_rsdp *rsdp = NULL;

	for (UINTN i = 0; i < fw_st->NumberOfTableEntries && !rsdp; i++) {
		EFI_CONFIGURATION_TABLE *t = &fw_st->ConfigurationTable[i];
		if (memcmp(&t->VendorGuid, &acpi20, sizeof(EFI_GUID)) == 0)
			rsdp = t->VendorTable;
	}
	for (UINTN i = 0; i < fw_st->NumberOfTableEntries && !rsdp; i++) {
		EFI_CONFIGURATION_TABLE *t = &fw_st->ConfigurationTable[i];
		if (memcmp(&t->VendorGuid, &acpi10, sizeof(EFI_GUID)) == 0)
			rsdp = t->VendorTable;
	}
	if (!rsdp)
		return NULL;
	bool xsdt = rsdp->revision >= ACPI_RSDP_REV_XSDT && rsdp->xsdt_address;
	const struct acpi_sdt_header *root =
		(const void *)(uintptr_t)(xsdt ? rsdp->xsdt_address : rsdp->rsdt_address);
	if (!root || root->length < sizeof(*root))
		return NULL;
	size_t entry = xsdt ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / entry;
	const uint8_t *entries = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = 0;
		memcpy(&addr, entries + i * entry, entry);
		const struct acpi_sdt_header *h = (const void *)(uintptr_t)addr;
		if (h && memcmp(h->signature, sig, 4) == 0)
			return h;
	}
	return NULL;
}

uint64_t fw_image_base(void)
{
	return fw_loaded_image ? (uint64_t)(uintptr_t)fw_loaded_image->ImageBase : 0;
}

uint64_t fw_image_size(void)
{
	return fw_loaded_image ? fw_loaded_image->ImageSize : 0;
}

#define HUNDRED_NS_PER_US 10	/* SetTimer counts in 100 ns units (UEFI 2.10 §7.1.7) */
#define TIMER_POLL_US 1000

bool fw_timer_event_fires(uint64_t us, uint64_t limit_us)
{
	EFI_EVENT ev;
	bool fired = false;

	REFUSED_ELSEWHERE(false);
	if (fw_st->BootServices->CreateEvent(EVT_TIMER, TPL_CALLBACK, NULL, NULL, &ev) != EFI_SUCCESS)
		return false;
	if (fw_st->BootServices->SetTimer(ev, TimerRelative, us * HUNDRED_NS_PER_US) == EFI_SUCCESS) {
		for (uint64_t waited = 0; waited <= limit_us && !fired; waited += TIMER_POLL_US) {
			if (fw_st->BootServices->CheckEvent(ev) == EFI_SUCCESS)
				fired = true;
			else
				fw_st->BootServices->Stall(TIMER_POLL_US);
		}
		fw_st->BootServices->SetTimer(ev, TimerCancel, 0);
	}
	fw_st->BootServices->CloseEvent(ev);
	return fired;
}

EFI_EVENT fw_deadline(uint64_t ms)
{
	EFI_EVENT ev = NULL;
	if (fw_elsewhere || fw_st->BootServices->CreateEvent(EVT_TIMER, TPL_CALLBACK, NULL, NULL, &ev) != EFI_SUCCESS)
		return NULL;
	if (fw_st->BootServices->SetTimer(ev, TimerRelative, ms * 1000u * HUNDRED_NS_PER_US) != EFI_SUCCESS) {
		fw_st->BootServices->CloseEvent(ev);
		return NULL;
	}
	return ev;
}

bool fw_deadline_passed(EFI_EVENT ev)
{
	return !ev || fw_st->BootServices->CheckEvent(ev) == EFI_SUCCESS;
}

void fw_deadline_end(EFI_EVENT ev)
{
	if (ev)
		fw_st->BootServices->CloseEvent(ev);	/* closing cancels its timer (UEFI 2.10 §7.1.3) */
}

#define CLOCK_PERIOD_MS 10	/* the firmware's timer tick on edk2 platforms; finer would not be kept */
static struct {
	EFI_EVENT ev;
	volatile uint64_t ms;
	unsigned users;
} fw_clock;

static VOID EFIAPI clock_tick(EFI_EVENT ev, VOID *ctx)
{
	(void)ev;
	(void)ctx;
	fw_clock.ms += CLOCK_PERIOD_MS;
}

void fw_clock_start(void)
{
	if (fw_clock.users++ || fw_elsewhere)
		return;
	if (fw_st->BootServices->CreateEvent(EVT_TIMER | EVT_NOTIFY_SIGNAL, TPL_CALLBACK, clock_tick, NULL,
					     &fw_clock.ev) != EFI_SUCCESS) {
		fw_clock.ev = NULL;
		return;
	}
	fw_st->BootServices->SetTimer(fw_clock.ev, TimerPeriodic, CLOCK_PERIOD_MS * 1000u * HUNDRED_NS_PER_US);
}

uint64_t fw_clock_ms(void)
{
	return fw_clock.ms;
}

void fw_clock_stop(void)
{
	if (!fw_clock.users || --fw_clock.users)
		return;
	if (fw_clock.ev)
		fw_st->BootServices->CloseEvent(fw_clock.ev);
	fw_clock.ev = NULL;
}

bool fw_has_console_input(void)
{
	return fw_st->ConIn != NULL;
}

bool fw_key_pressed(void)
{
	EFI_INPUT_KEY key;
	REFUSED_ELSEWHERE(false);
	if (!fw_st->ConIn)
		return false;
	return fw_st->ConIn->ReadKeyStroke(fw_st->ConIn, &key) == EFI_SUCCESS;
}

long fw_load_options(char *buf, size_t cap, const char **note)
{
	*note = "none";
	if (!fw_loaded_image || !fw_loaded_image->LoadOptions || fw_loaded_image->LoadOptionsSize < 2)
		return -1;
	const CHAR16 *w = fw_loaded_image->LoadOptions;
	size_t n = fw_loaded_image->LoadOptionsSize / 2, len = 0;
	for (size_t i = 0; i < n && w[i]; i++) {
		CHAR16 c = w[i];
		if (c == '\t' || c == '\r' || c == '\n')
			c = ' ';
		if (c < 0x20 || c > 0x7e) {
			*note = "binary (not text): ignored";
			return -1;
		}
		if (len + 1 >= cap) {
			*note = "too long: ignored";
			return -1;
		}
		buf[len++] = (char)c;
	}
	buf[len] = '\0';
	*note = "text";
	return (long)len;
}

/* The image's directory from its file-path device path, e.g. "\EFI\BOOT\". */
static void image_dir(CHAR16 *dir, size_t cap)
{
	size_t len = 0;
	dir[0] = 0;
	if (!fw_loaded_image || !fw_loaded_image->FilePath)
		return;
	struct devpath_walk w;
	struct devpath_node n;
	devpath_begin(&w, fw_loaded_image->FilePath, SIZE_MAX);
	while (devpath_next(&w, &n)) {
		if (n.type != DEVPATH_MEDIA || n.subtype != DEVPATH_MEDIA_FILE_PATH)
			continue;
		const CHAR16 *p = (const CHAR16 *)n.data;
		for (size_t i = 0; i < n.len / sizeof(CHAR16) && p[i] && len + 2 < cap; i++)
			dir[len++] = p[i];
	}
	while (len && dir[len - 1] != '\\')
		len--;
	dir[len] = 0;
}

EFI_FILE_HANDLE fw_open_boot_volume(void)
{
	static EFI_GUID fs_guid = SIMPLE_FILE_SYSTEM_PROTOCOL;
	EFI_FILE_IO_INTERFACE *fs = NULL;
	EFI_FILE_HANDLE root = NULL;

	if (!fw_loaded_image || !fw_loaded_image->DeviceHandle)
		return NULL;
	if (fw_st->BootServices->HandleProtocol(fw_loaded_image->DeviceHandle, &fs_guid, (void **)&fs) != EFI_SUCCESS)
		return NULL;
	if (fs->OpenVolume(fs, &root) != EFI_SUCCESS)
		return NULL;
	return root;
}

void fw_ascii(char *dst, size_t cap, const CHAR16 *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = src[i] < 0x80 ? (char)src[i] : '?';
	dst[i] = '\0';
}

/* EFI_FILE_INFO.Attribute says whether an open handle is a directory (UEFI 2.10 §13.5.16). */
static bool is_directory(EFI_FILE_HANDLE f)
{
	static EFI_GUID file_info_guid = EFI_FILE_INFO_ID;
	union {
		EFI_FILE_INFO info;
		uint8_t bytes[FILE_INFO_BUF];
	} buf;
	UINTN size = sizeof(buf);
	return f->GetInfo(f, &file_info_guid, &size, &buf) == EFI_SUCCESS && (buf.info.Attribute & EFI_FILE_DIRECTORY);
}

long fw_read_beside_image(const char *name, char *buf, size_t cap, char *where, size_t where_cap)
{
	CHAR16 dir[PATH_MAX_CHARS], path[PATH_MAX_CHARS];
	EFI_FILE_HANDLE root = fw_open_boot_volume();
	long result = -1;

	where[0] = '\0';
	if (!root)
		return -1;
	image_dir(dir, PATH_MAX_CHARS);
	const CHAR16 *dirs[2] = { dir, L"\\" };
	for (int d = 0; d < 2 && result == -1; d++) {
		size_t k = 0;
		for (size_t i = 0; dirs[d][i] && k + 1 < PATH_MAX_CHARS; i++)
			path[k++] = dirs[d][i];
		if (k == 0 || path[k - 1] != '\\')
			path[k++] = '\\';
		for (size_t i = 0; name[i] && k + 1 < PATH_MAX_CHARS; i++)
			path[k++] = (CHAR16)name[i];
		path[k] = 0;
		EFI_FILE_HANDLE f = NULL;
		if (root->Open(root, &f, path, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
			continue;
		fw_ascii(where, where_cap, path);
		if (is_directory(f)) {
			/* Reading it would give directory entries (UEFI 2.10 §13.5.5), not the file's bytes. */
			result = -3;
			f->Close(f);
			break;
		}
		UINTN size = cap;
		EFI_STATUS st = f->Read(f, &size, buf);
		if (st != EFI_SUCCESS) {
			result = -2;
		} else if (size == cap) {
			/* Could be longer than the buffer: refuse rather than read half a file. */
			char extra;
			UINTN one = 1;
			result = (f->Read(f, &one, &extra) == EFI_SUCCESS && one == 0) ? (long)size : -2;
		} else {
			result = (long)size;
		}
		f->Close(f);
	}
	root->Close(root);
	return result;
}
