/* boot/platform.c - see platform.h. */
#include "boot/boot.h"
#include "boot/platform.h"
#include "boot/net.h"
#include "lib/out.h"
#include "lib/record.h"
#include "fwtables/smbios.h"

#define PAGE_SIZE_4K 4096u
#define MIB (1024u * 1024u)
#define SMBIOS_EP_READ 0x20		/* covers both entry point formats (0x18 and 0x1f bytes) */
#define SMBIOS_TABLE_MAX (1u << 20)	/* a sanity bound on the structure table length */
#define MEMMAP_SLACK_DESCRIPTORS 8	/* allocating the buffer may split a descriptor */
#define VENDOR_MAX 64
#define SHOWN_MAX 96			/* room for one escaped firmware string in the platform line */

/* PI specification 1.8, vol. 2, §13.4: EFI_MP_SERVICES_PROTOCOL (only its first member is used). */
#define MP_SERVICES_PROTOCOL_GUID \
	{ 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }
struct mp_services {
	EFI_STATUS (EFIAPI *get_number_of_processors)(struct mp_services *self, UINTN *total, UINTN *enabled);
};

/*
 * UEFI 2.10 §7.2.3, EFI_MEMORY_TYPE: which descriptors are RAM.  Reserved,
 * unusable, MMIO, PAL code and persistent memory are not counted.
 */
static const bool memory_type_is_ram[] = {
	[EfiLoaderCode] = true, [EfiLoaderData] = true,
	[EfiBootServicesCode] = true, [EfiBootServicesData] = true,
	[EfiRuntimeServicesCode] = true, [EfiRuntimeServicesData] = true,
	[EfiConventionalMemory] = true, [EfiACPIReclaimMemory] = true, [EfiACPIMemoryNVS] = true,
};
#define EFI_UNACCEPTED_MEMORY_TYPE 15	/* UEFI 2.9+: RAM not yet accepted by a TDX/SEV-SNP guest */

struct platform {
	char fw_vendor[VENDOR_MAX];
	uint32_t fw_revision;
	uint32_t uefi_revision;
	bool have_smbios;
	struct smbios_table smbios;
	struct smbios_info id;
	const char *smbios_problem;
	uint64_t memory_bytes;		/* 0: the memory map could not be read */
	UINTN cpus, cpus_enabled;	/* 0: no MP services */
	int secure_boot, setup_mode;	/* 1, 0, or -1 when the variable is absent */
};

/* The SMBIOS tables, read once: config_read.c wants the UUID before the platform record is written. */
static struct {
	bool read, have;
	struct smbios_table table;
	struct smbios_info id;
	const char *problem;
} sm;

static const void *config_table(EFI_GUID *guid)
{
	for (UINTN i = 0; i < fw_st->NumberOfTableEntries; i++)
		if (memcmp(&fw_st->ConfigurationTable[i].VendorGuid, guid, sizeof(EFI_GUID)) == 0)
			return fw_st->ConfigurationTable[i].VendorTable;
	return NULL;
}

static void read_tables(void)
{
	static EFI_GUID v3 = SMBIOS3_TABLE_GUID;
	static EFI_GUID v2 = SMBIOS_TABLE_GUID;
	if (sm.read)
		return;
	sm.read = true;
	/* The 64-bit (3.x) entry point first: it can describe a table above 4 GiB. */
	const void *ep = config_table(&v3);
	if (!ep)
		ep = config_table(&v2);
	if (!ep) {
		sm.problem = "the firmware publishes no SMBIOS entry point";
		return;
	}
	if (!smbios_entry_point(ep, SMBIOS_EP_READ, &sm.table, &sm.problem))
		return;
	if (!sm.table.address || sm.table.length > SMBIOS_TABLE_MAX) {
		sm.problem = "the SMBIOS entry point gives no usable table address or length";
		return;
	}
	sm.have = true;
	smbios_parse_table((const void *)(uintptr_t)sm.table.address, sm.table.length, &sm.id);
	sm.problem = sm.id.problem;
}

static void read_smbios(struct platform *p)
{
	read_tables();
	p->have_smbios = sm.have;
	p->smbios = sm.table;
	p->id = sm.id;
	p->smbios_problem = sm.problem;
}

bool platform_uuid(char out[SMBIOS_UUID_TEXT])
{
	read_tables();
	return sm.have && smbios_uuid_text(&sm.id, sm.table.major, sm.table.minor, out);
}

static uint64_t memory_size(void)
{
	EFI_BOOT_SERVICES *bs = fw_st->BootServices;
	UINTN size = 0, key, desc_size = 0;
	UINT32 desc_version;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	uint64_t total = 0;

	if (bs->GetMemoryMap(&size, NULL, &key, &desc_size, &desc_version) != EFI_BUFFER_TOO_SMALL || !desc_size)
		return 0;
	size += MEMMAP_SLACK_DESCRIPTORS * desc_size;
	if (bs->AllocatePool(EfiLoaderData, size, (void **)&map) != EFI_SUCCESS)
		return 0;
	if (bs->GetMemoryMap(&size, map, &key, &desc_size, &desc_version) == EFI_SUCCESS) {
		for (UINTN off = 0; off + desc_size <= size; off += desc_size) {
			const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const uint8_t *)map + off);
			bool ram = d->Type == EFI_UNACCEPTED_MEMORY_TYPE ||
				   (d->Type < ARRAY_SIZE(memory_type_is_ram) && memory_type_is_ram[d->Type]);
			if (ram)
				total += d->NumberOfPages * PAGE_SIZE_4K;
		}
	}
	bs->FreePool(map);
	return total;
}

static void count_cpus(struct platform *p)
{
	static EFI_GUID mp_guid = MP_SERVICES_PROTOCOL_GUID;
	struct mp_services *mp = NULL;
	UINTN total = 0, enabled = 0;

	if (fw_st->BootServices->LocateProtocol(&mp_guid, NULL, (void **)&mp) != EFI_SUCCESS || !mp)
		return;
	if (mp->get_number_of_processors(mp, &total, &enabled) != EFI_SUCCESS)
		return;
	p->cpus = total;
	p->cpus_enabled = enabled;
}

/* A one-byte global variable (UEFI 2.10 §3.3, table 3-1): 1, 0, or -1 when absent or odd. */
static int global_flag(CHAR16 *name)
{
	static EFI_GUID global = EFI_GLOBAL_VARIABLE;
	UINT8 v = 0;
	UINTN size = sizeof(v);
	if (fw_st->RuntimeServices->GetVariable(name, &global, NULL, &size, &v) != EFI_SUCCESS || size != 1)
		return -1;
	return v ? 1 : 0;
}

/* "2.70" style: the revision's high half is the major, the low half the minor (UEFI 2.10 §4.2.1). */
static void uefi_revision_text(char *buf, size_t cap, uint32_t rev)
{
	unsigned major = rev >> 16, minor = rev & 0xffff;
	if (minor % 10)
		snprintf(buf, cap, "%u.%u.%u", major, minor / 10, minor % 10);
	else
		snprintf(buf, cap, "%u.%u", major, minor / 10);
}

static void tri(struct rec *r, const char *key, int v)
{
	if (v < 0)
		rec_null(r, key);
	else
		rec_bool(r, key, v == 1);
}

static void emit(const struct platform *p)
{
	struct rec r;
	struct rec *rp = &r;
	char uefi[16];

	uefi_revision_text(uefi, sizeof(uefi), p->uefi_revision);
	rec_start(rp, "platform");
	rec_obj(rp, "firmware");
	rec_str(rp, "vendor", p->fw_vendor);
	rec_hex(rp, "revision", p->fw_revision);
	rec_str(rp, "uefi", uefi);
	rec_obj_end(rp);
	if (p->have_smbios) {
		char ver[16];
		snprintf(ver, sizeof(ver), "%u.%u", p->smbios.major, p->smbios.minor);
		rec_obj(rp, "smbios");
		rec_str(rp, "version", ver);
		rec_str(rp, "system_manufacturer", p->id.have_system ? p->id.system_manufacturer : NULL);
		rec_str(rp, "system_product", p->id.have_system ? p->id.system_product : NULL);
		rec_str(rp, "system_version", p->id.have_system ? p->id.system_version : NULL);
		rec_str(rp, "system_serial", p->id.have_system && p->id.system_serial[0] ? p->id.system_serial : NULL);
		char uuid[SMBIOS_UUID_TEXT];
		bool have_uuid = smbios_uuid_text(&p->id, p->smbios.major, p->smbios.minor, uuid);
		rec_str(rp, "system_uuid", have_uuid ? uuid : NULL);
		rec_str(rp, "bios_vendor", p->id.have_bios ? p->id.bios_vendor : NULL);
		rec_str(rp, "bios_version", p->id.have_bios ? p->id.bios_version : NULL);
		rec_str(rp, "bios_date", p->id.have_bios ? p->id.bios_date : NULL);
		if (p->smbios_problem)
			rec_str(rp, "problem", p->smbios_problem);
		rec_obj_end(rp);
	} else {
		rec_null(rp, "smbios");
		rec_str(rp, "smbios_problem", p->smbios_problem);
	}
	net_record(rp);
	if (p->memory_bytes) {
		rec_u64(rp, "memory_bytes", p->memory_bytes);
		rec_u64(rp, "memory_mib", p->memory_bytes / MIB);
	} else {
		rec_null(rp, "memory_bytes");
		rec_null(rp, "memory_mib");
	}
	if (p->cpus) {
		rec_u64(rp, "cpus", p->cpus);
		rec_u64(rp, "cpus_enabled", p->cpus_enabled);
	} else {
		rec_null(rp, "cpus");
		rec_null(rp, "cpus_enabled");
	}
	tri(rp, "secure_boot", p->secure_boot);
	tri(rp, "setup_mode", p->setup_mode);
	rec_emit(rp);

	/* Firmware strings are the firmware's to choose: shown escaped, they cannot forge a record. */
	static char t[6][SHOWN_MAX];
	out_text("platform: %s %s; BIOS %s %s (%s); firmware %s rev 0x%x, UEFI %s",
		 p->id.have_system ? out_clean(t[0], SHOWN_MAX, p->id.system_manufacturer) : "(no SMBIOS)",
		 p->id.have_system ? out_clean(t[1], SHOWN_MAX, p->id.system_product) : "",
		 p->id.have_bios ? out_clean(t[2], SHOWN_MAX, p->id.bios_vendor) : "?",
		 p->id.have_bios ? out_clean(t[3], SHOWN_MAX, p->id.bios_version) : "?",
		 p->id.have_bios ? out_clean(t[4], SHOWN_MAX, p->id.bios_date) : "?",
		 out_clean(t[5], SHOWN_MAX, p->fw_vendor), p->fw_revision, uefi);
	out_text("platform: %llu MiB of RAM, %llu CPU%s (%llu enabled), Secure Boot %s",
		 (unsigned long long)(p->memory_bytes / MIB), (unsigned long long)p->cpus, p->cpus == 1 ? "" : "s",
		 (unsigned long long)p->cpus_enabled,
		 p->secure_boot == 1 ? "on" : p->secure_boot == 0 ? "off" : "not supported by the firmware");
	char uuid[SMBIOS_UUID_TEXT];
	if (p->id.have_system && (p->id.system_serial[0] || platform_uuid(uuid)))
		out_text("platform: serial number %s, UUID %s",
			 p->id.system_serial[0] ? out_clean(t[0], SHOWN_MAX, p->id.system_serial) : "(none)",
			 platform_uuid(uuid) ? uuid : "(none)");
	net_announce();
}

void platform_report(void)
{
	static struct platform p;

	memset(&p, 0, sizeof(p));
	fw_ascii(p.fw_vendor, sizeof(p.fw_vendor), fw_st->FirmwareVendor);
	p.fw_revision = fw_st->FirmwareRevision;
	p.uefi_revision = fw_st->Hdr.Revision;
	read_smbios(&p);
	p.memory_bytes = memory_size();
	count_cpus(&p);
	p.secure_boot = global_flag(L"SecureBoot");
	p.setup_mode = global_flag(L"SetupMode");
	emit(&p);
}
