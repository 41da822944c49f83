/* net/efi_status.c - see efi_status.h. */
#include "net/efi_status.h"

/* Error codes (the bits below EFI_STATUS_ERROR_BIT), UEFI 2.10 appendix D table D-3. */
static const struct {
	uint16_t code;
	const char *name;
} errors[] = {
	{ 1, "EFI_LOAD_ERROR" },
	{ 2, "EFI_INVALID_PARAMETER" },
	{ 3, "EFI_UNSUPPORTED" },
	{ 4, "EFI_BAD_BUFFER_SIZE" },
	{ 5, "EFI_BUFFER_TOO_SMALL" },
	{ 6, "EFI_NOT_READY" },
	{ 7, "EFI_DEVICE_ERROR" },
	{ 8, "EFI_WRITE_PROTECTED" },
	{ 9, "EFI_OUT_OF_RESOURCES" },
	{ 10, "EFI_VOLUME_CORRUPTED" },
	{ 11, "EFI_VOLUME_FULL" },
	{ 12, "EFI_NO_MEDIA" },
	{ 13, "EFI_MEDIA_CHANGED" },
	{ 14, "EFI_NOT_FOUND" },
	{ 15, "EFI_ACCESS_DENIED" },
	{ 16, "EFI_NO_RESPONSE" },
	{ 17, "EFI_NO_MAPPING" },
	{ 18, "EFI_TIMEOUT" },
	{ 19, "EFI_NOT_STARTED" },
	{ 20, "EFI_ALREADY_STARTED" },
	{ 21, "EFI_ABORTED" },
	{ 22, "EFI_ICMP_ERROR" },
	{ 23, "EFI_TFTP_ERROR" },
	{ 24, "EFI_PROTOCOL_ERROR" },
	{ 25, "EFI_INCOMPATIBLE_VERSION" },
	{ 26, "EFI_SECURITY_VIOLATION" },
	{ 27, "EFI_CRC_ERROR" },
	{ 28, "EFI_END_OF_MEDIA" },
	{ 31, "EFI_END_OF_FILE" },
	{ 32, "EFI_INVALID_LANGUAGE" },
	{ 33, "EFI_COMPROMISED_DATA" },
	{ 34, "EFI_IP_ADDRESS_CONFLICT" },
	{ 35, "EFI_HTTP_ERROR" },
	{ 104, "EFI_CONNECTION_FIN" },
	{ 105, "EFI_CONNECTION_RESET" },
	{ 106, "EFI_CONNECTION_REFUSED" },
};

const char *efi_status_name(uint64_t status)
{
	if (status == 0)
		return "EFI_SUCCESS";
	if (!(status & EFI_STATUS_ERROR_BIT))
		return "an EFI warning";
	for (size_t i = 0; i < ARRAY_SIZE(errors); i++)
		if (EFI_STATUS_ERR(errors[i].code) == status)
			return errors[i].name;
	return "another EFI error";
}
