#!/bin/sh
# SPDX-License-Identifier: MIT
# One line to each of stdout, stderr and fd 3 (the caller's protocol pipe), then exit status 7.
echo to-stdout
echo to-stderr >&2
echo to-fd3 >&3
exit 7
