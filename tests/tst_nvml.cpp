// SPDX-License-Identifier: MIT
// The NVML clock reader (issue 12) against a scripted stand-in library: readings, the drift rule,
// the reason names, and a clear "unavailable" when the library or the driver is missing.
#include "ks/core/nvml.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ks;

TEST(Nvml, ReadsClocksAndMarksABlockWhoseClockMoved) {
    setenv("KS_NVML_LIBRARY", KS_FAKE_NVML, 1);
    unsetenv("FAKE_NVML_FAIL");
    // the constructor's probe reads 1980; then 1980, 1975 (-0.25 %), 1500 (-24 %)
    setenv("FAKE_NVML_CLOCKS", "1980,1980,1975,1500", 1);
    const nvml::Clocks clocks("0000:19:00.0");
    ASSERT_TRUE(clocks.available()) << clocks.problem();
    EXPECT_EQ(clocks.source(), "nvml");
    const nvml::Reading a = clocks.read(), b = clocks.read(), c = clocks.read();
    ASSERT_TRUE(a.ok && b.ok && c.ok);
    EXPECT_DOUBLE_EQ(a.smMhz, 1980);
    EXPECT_DOUBLE_EQ(c.smMhz, 1500);
    const ClockBlock steady = nvml::blockOf(a, b), fell = nvml::blockOf(b, c);
    EXPECT_FALSE(steady.moved);
    EXPECT_TRUE(fell.moved);
    EXPECT_EQ(fell.reasonsBefore, 0u);
    EXPECT_EQ(fell.reasonsAfter, 4u);
    EXPECT_EQ(clockReasonNames(fell.reasonsAfter), std::vector<std::string>{"SwPowerCap"});
    // a reading that failed never marks a block
    EXPECT_FALSE(nvml::blockOf(nvml::Reading{}, c).moved);
    unsetenv("FAKE_NVML_CLOCKS");
}

TEST(Nvml, NamesWhyNothingCanBeRead) {
    setenv("KS_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    const nvml::Clocks missing("");
    EXPECT_FALSE(missing.available());
    EXPECT_NE(missing.source().find("unavailable: cannot open /nonexistent/libnvidia-ml.so.1"), std::string::npos)
        << missing.source();
    EXPECT_FALSE(missing.read().ok);
    setenv("KS_NVML_LIBRARY", KS_FAKE_NVML, 1);
    setenv("FAKE_NVML_FAIL", "init", 1);
    const nvml::Clocks noDriver("");
    EXPECT_FALSE(noDriver.available());
    EXPECT_NE(noDriver.problem().find("nvmlInit: Driver Not Loaded"), std::string::npos) << noDriver.problem();
    unsetenv("FAKE_NVML_FAIL");
    const nvml::Clocks wrongBus("bogus");
    EXPECT_FALSE(wrongBus.available());
    EXPECT_NE(wrongBus.problem().find("PCI bus bogus"), std::string::npos) << wrongBus.problem();
    unsetenv("KS_NVML_LIBRARY");
}

TEST(Nvml, DriftRuleAndReasonNames) {
    EXPECT_FALSE(clockMoved(1980, 1980));
    EXPECT_FALSE(clockMoved(1980, 1980 * 0.975)); // 2.5 % is within the 3 % limit
    EXPECT_TRUE(clockMoved(1980, 1980 * 0.96));
    EXPECT_TRUE(clockMoved(1500, 1980));
    EXPECT_FALSE(clockMoved(NaN, 1500));
    EXPECT_EQ(clockReasonNames(0), std::vector<std::string>{});
    EXPECT_EQ(clockReasonNames(0x1 | 0x40), (std::vector<std::string>{"GpuIdle", "HwThermalSlowdown"}));
    EXPECT_EQ(clockReasonNames(0x10000), std::vector<std::string>{"0x10000"});
}
