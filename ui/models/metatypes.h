// SPDX-License-Identifier: MIT
#pragma once
// Engine value structs travel through signals (and QSignalSpy in tests), so Qt must know them.

#include <ks/core/criteria.h>
#include <ks/core/results.h>

#include <QMetaType>

Q_DECLARE_METATYPE(ks::TaskResult)
Q_DECLARE_METATYPE(ks::RunInfo)
Q_DECLARE_METATYPE(ks::Thresholds)
