# kernel-variants/kernels.mk: make several kernels at once under one jobserver.
#
# Run by kernel-variants/build as
#   JLB_SRC=TREE JLB_DIRS="DIR..." make -f kernels.mk -jN [KERNEL MAKE VARIABLES]
# Each DIR holds a .config; its kernel is made from TREE with O=DIR, output
# in DIR/make.log and make's exit status in DIR/make.rc (written even when
# it fails, so that one failure does not hide behind the others). Variables
# on the command line (CC, ARCH, CROSS_COMPILE) reach the kernels' makes
# through MAKEFLAGS, and so does the jobserver: the kernels share N jobs.

.PHONY: all $(JLB_DIRS)
all: $(JLB_DIRS)

$(JLB_DIRS):
	+@$(MAKE) -C $(JLB_SRC) O=$@ bzImage modules >$@/make.log 2>&1; echo $$? >$@/make.rc
