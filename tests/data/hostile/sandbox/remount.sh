#!/bin/sh
# SPDX-License-Identifier: MIT
# A program with capabilities in its user namespace could remount the read-only view writable;
# tries that, then writes into /etc. Prints "escaped" if the write worked.
mount -o remount,rw / 2>/dev/null
mount -o remount,rw,bind /etc 2>/dev/null
if (echo hostile > /etc/kernelsieve-sandbox-escape) 2>/dev/null; then echo escaped; else echo contained; fi
