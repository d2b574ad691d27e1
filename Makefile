# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Userspace build of libexec-user.  The kernel module is built by Kbuild from
# the same core/ sources.
#
#   make                 the static and shared libraries
#   make check           the whole test command (see README.md)
#   make install         headers, libraries, pkg-config file

VERSION_MAJOR := 0
VERSION_MINOR := 1
VERSION_PATCH := 0
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)

CC ?= cc
O ?= build
SAN ?=
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Werror=implicit-function-declaration
CPPFLAGS_LIB := -Iinclude -Icore -Iuser/include -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 -fPIC -pthread $(WARN) $(CFLAGS) $(SAN)
LDLIBS_LIB := -luring -lpthread

CORE_SRC := $(wildcard core/*.c)
USER_SRC := $(wildcard user/*.c)
LIB_OBJ := $(patsubst %.c,$(O)/%.o,$(CORE_SRC) $(USER_SRC))

LIB_A := $(O)/libexec-user.a
LIB_SO := $(O)/libexec-user.so.$(VERSION)
SONAME := libexec-user.so.$(VERSION_MAJOR)

all: $(LIB_A) $(LIB_SO)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_LIB)
	ln -sf $(notdir $@) $(O)/$(SONAME)
	ln -sf $(SONAME) $(O)/libexec-user.so

-include $(LIB_OBJ:.o=.d)

clean:
	rm -rf $(O) build-*

.PHONY: all clean
