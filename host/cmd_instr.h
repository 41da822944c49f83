/* host/cmd_instr.h - `pmuboot-host instr`: the instruction table of a CPU (host/cmd_instr.c). */
#ifndef PMUBOOT_HOST_CMD_INSTR_H
#define PMUBOOT_HOST_CMD_INSTR_H

int cmd_instr(int argc, char **argv);

#endif
