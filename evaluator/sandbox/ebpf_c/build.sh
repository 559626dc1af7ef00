#!/usr/bin/env bash
# Builds the eBPF tracer (trace.bpf.c + loader.c) into OUT (default: .tools/ebpf at the project's
# root): the kernel's types from its BTF (vmlinux.h), the CO-RE object (clang), its skeleton
# (bpftool), the loader linked with libbpf. Nothing is compiled at run time; nothing built is
# committed. Exit 3 when a tool is missing (the tracer then stays unavailable, strace is used).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../../.tools/ebpf}"
for tool in clang bpftool cc; do
  command -v "$tool" >/dev/null || { echo "ebpf: $tool not installed" >&2; exit 3; }
done
[ -f /usr/include/bpf/libbpf.h ] || { echo "ebpf: libbpf-dev not installed" >&2; exit 3; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "ebpf: the kernel has no BTF (/sys/kernel/btf/vmlinux)" >&2; exit 3; }
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$work/vmlinux.h"
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$work" -I"$here" -c "$here/trace.bpf.c" -o "$work/trace.bpf.o"
bpftool gen skeleton "$work/trace.bpf.o" name trace > "$work/trace.skel.h"
cc -O2 -Wall -Wextra -I"$work" -I"$here" "$here/loader.c" -lbpf -lelf -lz -o "$work/agentic-eval-ebpf-trace"
mv "$work/agentic-eval-ebpf-trace" "$out/agentic-eval-ebpf-trace"
echo "$out/agentic-eval-ebpf-trace"
