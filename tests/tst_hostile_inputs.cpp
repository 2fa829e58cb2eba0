// SPDX-License-Identifier: MIT
// Hostile files (issue 15): every loader must refuse a bad file with a ks::Error that names the
// file and the field, never crash, hang or load garbage. The huge inputs (200k levels of nesting)
// are generated here at run time rather than committed.

#include "ks/core/analysisreports.h"
#include "ks/core/benchresults.h"
#include "ks/core/criteria.h"
#include "ks/core/external.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

using namespace ks;
namespace fs = std::filesystem;

namespace {

// The message of the ks::Error `f` throws; a test failure when it throws anything else (an
// nlohmann exception escaping is what aborted the CLI with rc 134) or nothing.
std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw a non-ks::Error: " << e.what();
        return e.what();
    }
    ADD_FAILURE() << "did not throw";
    return {};
}

#define EXPECT_HAS(text, needle)                                                                   \
    EXPECT_NE(std::string(text).find(needle), std::string::npos) << (text)

// A file of tests/data/hostile; the fuzz_* ones crashed the fuzz targets of fuzz/.
std::string hostileFile(const std::string& name) {
    return readFile(std::string(KS_TEST_DATA) + "/hostile/" + name);
}

std::string nested(int levels) {
    return std::string(static_cast<size_t>(levels), '[') +
           std::string(static_cast<size_t>(levels), ']');
}

std::string noFiles(const std::string& p) {
    throw Error(p + ": no such file");
}

// Each loader, fed one text under a file name, as the CLI and GUI call them.
const std::map<std::string, std::function<void(const std::string&, const std::string&)>>&
loaders() {
    static const std::map<std::string, std::function<void(const std::string&, const std::string&)>>
        l{
            {"results", [](const std::string& t, const std::string& p) { resultsFromJson(t, p); }},
            {"task result",
             [](const std::string& t, const std::string& p) { taskResultFromJson(t, p); }},
            {"run info", [](const std::string& t, const std::string& p) { runInfoFromJson(t, p); }},
            {"bench", [](const std::string& t, const std::string& p) { benchFromJson(t, p); }},
            {"profile", [](const std::string& t, const std::string& p) { parseProfile(t, p); }},
            {"task spec",
             [](const std::string& t, const std::string& p) { parseTaskSpec(t, p, noFiles); }},
        };
    return l;
}

const std::string kResults = R"({"schema":"kernelsieve.results","schema_version":1,)";
const std::string kTask =
    R"({"kind":"kernelsieve.task","format_version":1,"id":"H-1","name":"n","source":"s",)";

class TempDir {
  public:
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "ks-hostile-XXXXXX").string();
        m_path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    const fs::path& path() const { return m_path; }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories((m_path / rel).parent_path());
        std::ofstream(m_path / rel) << text;
    }

  private:
    fs::path m_path;
};

std::string taskWithSource(const std::string& id, const std::string& sourceFile) {
    return R"({"kind":"kernelsieve.task","format_version":1,"id":")" + id +
           R"(","name":"n","source_file":")" + sourceFile +
           R"(","inputs":[{"name":"x","shape":[1]}]})";
}

// Suite::issues keyed by the spec's file name.
std::map<std::string, std::string> issuesOf(const Suite& s) {
    std::map<std::string, std::string> out;
    for (const auto& i : s.issues)
        out[fs::path(i.file).filename().string()] = i.message;
    return out;
}

} // namespace

// --- thresholds -------------------------------------------------------------------------------

TEST(HostileThresholds, NaNInfinityNegativeAndOutOfRangeAreRefusedWithTheReason) {
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    for (const auto& i : thresholdInfos()) {
        EXPECT_EQ(thresholdValueProblem(i.key, i.defaultValue), "") << i.key;
        EXPECT_EQ(thresholdValueProblem(i.key, 0.0), "")
            << i.key << ": 0 is a legal bound (off for passes)";
        EXPECT_HAS(thresholdValueProblem(i.key, nan), "nan");
        EXPECT_HAS(thresholdValueProblem(i.key, nan), "switch the filter off");
        EXPECT_HAS(thresholdValueProblem(i.key, inf), "inf");
        EXPECT_HAS(thresholdValueProblem(i.key, -inf), "-inf");
        EXPECT_HAS(thresholdValueProblem(i.key, -0.01), "negative");
    }
    // Shares and ratios cannot exceed 1: a FLOP fraction of 1.5 or an efficiency bound of 2 never
    // means what the user wanted.
    EXPECT_HAS(thresholdValueProblem("redundant_flop_fraction", 1.5), "<= 1");
    EXPECT_HAS(thresholdValueProblem("baseline_efficiency", 2.0), "<= 1");
    EXPECT_EQ(thresholdValueProblem("baseline_rewrite_speedup", 50.0), "");
    EXPECT_EQ(thresholdValueProblem(BorderlineMarginKey, 0.1), "");
    EXPECT_HAS(thresholdValueProblem(BorderlineMarginKey, 1.5), "<= 1");
    EXPECT_HAS(thresholdValueProblem(BorderlineMarginKey, -0.1), "negative");
    // Every built-in profile passes its own check.
    for (const auto& name : builtinProfileNames())
        EXPECT_NO_THROW(builtinProfile(name)) << name;
}

TEST(HostileThresholds, OverrideNamesTheThresholdAndTheValue) {
    Thresholds t = Thresholds::defaults();
    for (const std::string bad : {"nan", "NaN", "inf", "-inf", "1e999", "-0.5"}) {
        const std::string e = errorOf([&] { applyThresholdOverride(t, "output_std=" + bad); });
        EXPECT_HAS(e, "--threshold output_std=" + bad);
        EXPECT_HAS(e, "must be a finite number >= 0");
    }
    EXPECT_HAS(errorOf([&] { applyThresholdOverride(t, "redundant_flop_fraction=1.5"); }), "<= 1");
    EXPECT_HAS(errorOf([&] { applyThresholdOverride(t, "borderline_margin=-1"); }),
               "borderline_margin");
    EXPECT_HAS(errorOf([&] { applyThresholdOverride(t, "output_std=0.01x"); }),
               "'0.01x' is not a number");
    EXPECT_HAS(errorOf([&] { applyThresholdOverride(t, "output_std="); }), "'' is not a number");
    EXPECT_HAS(errorOf([&] { applyThresholdOverride(t, "output_sdt=0.1"); }),
               "unknown threshold 'output_sdt'");
    EXPECT_EQ(t, Thresholds::defaults()) << "a refused override changes nothing";
    applyThresholdOverride(t, "output_std=0.02");
    applyThresholdOverride(t, "borderline_margin=0.2");
    EXPECT_DOUBLE_EQ(t.value(Threshold::OutputStd), 0.02);
    EXPECT_DOUBLE_EQ(t.borderlineMargin, 0.2);
}

TEST(HostileThresholds, ProfileFileWithBadValuesNamesTheFileAndTheField) {
    const std::string head = R"({"kind":"kernelsieve.profile","name":"p","thresholds":{)";
    std::string e = errorOf([&] { parseProfile(head + R"("output_std":-0.01}})", "neg.json"); });
    EXPECT_HAS(e, "neg.json");
    EXPECT_HAS(e, "'output_std'");
    EXPECT_HAS(e, "negative");
    e = errorOf([&] { parseProfile(head + R"("redundant_flop_fraction":3}})", "frac.json"); });
    EXPECT_HAS(e, "frac.json: threshold 'redundant_flop_fraction'");
    e = errorOf([&] { parseProfile(head + R"("output_range":"NaN"}})", "str.json"); });
    EXPECT_HAS(e, "'output_range' must be a number");
    // 1e999 is no double: nlohmann throws out_of_range, not parse_error, which used to abort.
    e = errorOf([&] { parseProfile(head + R"("output_range":1e999}})", "huge.json"); });
    EXPECT_HAS(e, "huge.json: not valid JSON");
    EXPECT_HAS(e, "1e999");
    e = errorOf([&] {
        parseProfile(R"({"kind":"kernelsieve.profile","name":5,"thresholds":{}})", "num.json");
    });
    EXPECT_HAS(e, "num.json");
    EXPECT_HAS(e, "'name' must be a string");
    e = errorOf([&] { parseProfile(R"({"kind":7,"thresholds":{}})", "kind.json"); });
    EXPECT_HAS(e, "kind.json: not a threshold profile");
}

TEST(HostileThresholds, ResultsFileWithNaNOrNegativeThresholdNamesTheField) {
    for (const auto& [field, value] :
         std::vector<std::pair<std::string, std::string>>{{"output_std", R"("NaN")"},
                                                          {"input_impact", "-1"},
                                                          {"zeros_pass_atol", R"("Infinity")"},
                                                          {"borderline_margin", "7"}}) {
        const std::string text =
            kResults + R"("thresholds":{")" + field + R"(":)" + value + R"(},"tasks":[]})";
        const std::string e = errorOf([&] { resultsFromJson(text, "r.json"); });
        EXPECT_HAS(e, "r.json: thresholds." + field);
        EXPECT_HAS(e, "must be a finite number");
    }
}

TEST(HostileThresholds, OneSeedWarnsThatTheStdFiltersCannotFlag) {
    EXPECT_EQ(seedCountWarning(2), "");
    EXPECT_EQ(seedCountWarning(100), "");
    const std::string w = seedCountWarning(1);
    EXPECT_HAS(w, "needs at least 2 seeds");
    EXPECT_HAS(w, "output_std and input_impact can never flag");
    EXPECT_NE(seedCountWarning(0), "");
}

// --- JSON loaders -----------------------------------------------------------------------------

TEST(HostileJson, DeepNestingIsRefusedByEveryLoaderWithoutOverflowingTheStack) {
    // 200k levels: a 400 KB file that segfaulted CLI and GUI. nlohmann parses it iteratively, but
    // copying or dumping the value recurses once per level.
    const std::string bare = nested(200000);
    const std::string wrapped = kResults + R"("tasks":)" + bare + "}";
    for (const auto& [name, load] : loaders()) {
        for (const std::string* text : {&bare, &wrapped}) {
            const std::string e = errorOf([&] { load(*text, "deep.json"); });
            EXPECT_HAS(e, "deep.json: not valid JSON: nested deeper than 512 levels") << name;
        }
    }
    // Brackets inside strings do not count; 500 real levels are still fine JSON.
    const std::string inString =
        kResults + R"("run":{"host":")" + std::string(100000, '[') + R"("},"tasks":[]})";
    EXPECT_NO_THROW(resultsFromJson(inString, "s.json"));
    const std::string e = errorOf(
        [&] { resultsFromJson(kResults + R"("tasks":)" + nested(500) + "}", "ok-depth.json"); });
    EXPECT_HAS(
        e,
        "ok-depth.json: a task entry is not an object"); // parsed, then refused for what it holds
}

TEST(HostileJson, NumbersBeyondDoubleRangeAreJsonErrorsNamingTheFile) {
    for (const auto& [name, load] : loaders()) {
        for (const std::string num : {"1e999999", "-1e999", "1e400"}) {
            const std::string e =
                errorOf([&] { load(R"({"schema_version":)" + num + "}", "big.json"); });
            EXPECT_HAS(e, "big.json: not valid JSON") << name;
            EXPECT_HAS(e, "number overflow") << name;
        }
    }
}

TEST(HostileJson, SchemaVersionOfTheWrongTypeOrNotAnIntegerIsRefused) {
    for (const std::string v : {R"("1")", R"({"major":1})", "[1]", "1.5", "true", "null", "0", "2",
                                "4611686018427387904"}) {
        std::string e = errorOf([&] {
            resultsFromJson(kResults.substr(0, kResults.find("\"schema_version\"")) +
                                R"("schema_version":)" + v + "}",
                            "v.json");
        });
        EXPECT_HAS(e, "v.json: results schema_version");
        EXPECT_HAS(e, "is not supported");
        e = errorOf([&] {
            benchFromJson(R"({"schema":"kernelsieve.bench","schema_version":)" + v + "}", "b.json");
        });
        EXPECT_HAS(e, "b.json: bench schema_version");
    }
    // format_version 1.5 is no task format we wrote; it used to read as 1 (and 1e30 was a cast UB).
    for (const std::string v : {"1.5", R"("1")", "1e30", "{}"}) {
        const std::string e = errorOf([&] {
            parseTaskSpec(R"({"kind":"kernelsieve.task","format_version":)" + v + R"(,"id":"x"})",
                          "t.json", noFiles);
        });
        EXPECT_HAS(e, "t.json: unsupported format_version");
    }
    const std::string e = errorOf([&] { resultsFromJson(R"({"schema":5})", "s.json"); });
    EXPECT_HAS(e, "s.json: not a KernelSieve results file");
}

TEST(HostileJson, ResultsFieldsOfTheWrongTypeOrOutOfRangeNameTheField) {
    const std::string task = R"({"id":"L1-1",)";
    const std::vector<std::pair<std::string, std::string>> cases{
        // field in the task                      , what the error must say
        {R"("seeds":4611686018427387904)", "'seeds' must be an integer in [0, 1000000]"},
        {R"("seeds":-3)", "'seeds' must be an integer"},
        {R"("seeds":2.5)", "'seeds' must be an integer"},
        {R"("output_shape":[1e30])",
         "'output_shape' must be an integer in [0, 1099511627776], got 1e+30"},
        {R"("output_shape":[4611686018427387904])", "'output_shape' must be an integer"},
        {R"("output_shape":[1048576,1048576,1048576,1048576])",
         "'output_shape' has more elements than fit in 64 bits"},
        {R"("output_shape":"16x16")", "'output_shape' must be a list of integers"},
        {R"("name":42)", "'name' must be a string, got 42"},
        {R"("level":1e30)", "'level' must be an integer"},
        {R"("tags":[1,2])", "'tags' must be a list of strings"},
        {R"("status":["ok"])", "'status' must be a string"},
        {R"("metrics":{"output_range":{"run":"yes"}})", "'run' must be true or false"},
        {R"("metrics":{"output_range":{"non_finite":-1}})", "'non_finite' must be an integer"},
        {R"("value_histogram":{"counts":[1,-2]})", "'counts' must be an integer"},
        {R"("metrics":7)", "task L1-1"},
    };
    for (const auto& [field, says] : cases) {
        const std::string text = kResults + R"("tasks":[)" + task + field + "}]}";
        const std::string e = errorOf([&] { resultsFromJson(text, "r.json"); });
        EXPECT_HAS(e, "r.json: task L1-1: ");
        EXPECT_HAS(e, says);
    }
    std::string e = errorOf(
        [&] { resultsFromJson(kResults + R"("run":{"seeds":4611686018427387904}})", "r.json"); });
    EXPECT_HAS(
        e,
        "r.json: run: field 'seeds' must be an integer in [0, 1000000], got 4611686018427387904");
    e = errorOf([&] { resultsFromJson(kResults + R"("run":"gpu"})", "r.json"); });
    EXPECT_HAS(e, "r.json: 'run' must be an object");
    e = errorOf([&] { resultsFromJson(kResults + R"("tasks":{"a":1}})", "r.json"); });
    EXPECT_HAS(e, "r.json: 'tasks' must be a list");
    e = errorOf([&] { taskResultFromJson(R"({"id":"X","seeds":"five"})", "line 3"); });
    EXPECT_HAS(e, "line 3: task X: field 'seeds' must be an integer");
}

TEST(HostileJson, BenchFieldsOutOfRangeNameTheField) {
    const std::string head =
        R"({"schema":"kernelsieve.bench","schema_version":1,"tasks":[{"task_id":"L1-23",)";
    for (const auto& [field, says] : std::vector<std::pair<std::string, std::string>>{
             {R"("shape":[1e30])", "'shape' must be an integer"},
             {R"("task_name":{"a":1})", "'task_name' must be a string"},
             {R"("variants":[{"validation":{"seeds":4611686018427387904}}])",
              "'seeds' must be an integer in [0, 1000000]"},
             {R"("variants":[{"timing":{"runs":-1}}])", "'runs' must be an integer"},
             {R"("variants":[{"shortcut":1}])", "'shortcut' must be true or false"}}) {
        const std::string e = errorOf([&] { benchFromJson(head + field + "}]}", "b.json"); });
        EXPECT_HAS(e, "b.json: ");
        EXPECT_HAS(e, says);
    }
}

TEST(HostileJson, TaskSpecNumbersOutOfRangeNameTheField) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"("level":1e30,"inputs":[{"name":"x","shape":[1]}]})",
         "'level' must be an integer in [0, 1000]"},
        {R"("number":"12","inputs":[{"name":"x","shape":[1]}]})", "'number' must be an integer"},
        {R"("inputs":[{"name":"x","shape":[1e30]}]})",
         "'shape' entries must be integers or dim names"},
        {R"("inputs":[{"name":"x","shape":[4611686018427387904]}]})",
         "'shape' sizes must lie in [0, 1099511627776]"},
        {R"("dims":{"full":{"N":4611686018427387904}},"inputs":[{"name":"x","shape":["N"]}]})",
         "dims.full.N"},
        {R"("inputs":[{"name":"x","shape":[2,2],"post":[{"op":"softmax","dim":1e30}]}]})",
         "'dim' must be an integer"},
    };
    for (const auto& [rest, says] : cases) {
        const std::string e = errorOf([&] { parseTaskSpec(kTask + rest, "t.json", noFiles); });
        EXPECT_HAS(e, "t.json");
        EXPECT_HAS(e, says);
    }
}

TEST(HostileJson, KernelManifestOfTheWrongShapeIsAnErrorNotACrash) {
    TempDir d;
    const Suite suite = loadBuiltinSuite();
    auto discover = [&](const std::string& manifest) {
        d.write("kernels.json", manifest);
        return discoverKernels(d.path().string(), suite, DiscoverOptions{});
    };
    const std::string path = (d.path() / "kernels.json").string();
    std::string e = errorOf([&] { discover(R"({"kind":5})"); });
    EXPECT_HAS(e, path + ": not a kernel manifest");
    e = errorOf(
        [&] { discover(R"({"kind":"kernelsieve.kernels","format_version":1.5,"kernels":[]})"); });
    EXPECT_HAS(e, path + ": format_version must be the integer 1, got 1.5");
    e = errorOf([&] { discover(R"({"kind":"kernelsieve.kernels","format_version":1e999})"); });
    EXPECT_HAS(e, path + ": not valid JSON");
    e = errorOf([&] { discover(nested(200000)); });
    EXPECT_HAS(e, path + ": not valid JSON: nested deeper");
    // A bad entry is refused on its own; the call returns.
    std::vector<ExternalKernel> ks;
    ASSERT_NO_THROW(ks = discover(R"({"kind":"kernelsieve.kernels","format_version":1,"kernels":[
        {"file":"a.cu","task":"L1-23","name":7},{"file":"b.cu","task":"L1-23","nvcc_flags":"-O3"}]})"));
    ASSERT_EQ(ks.size(), 2u);
    EXPECT_HAS(ks[0].error, "kernels[0]: field 'name' must be a string, got 7");
    EXPECT_HAS(ks[1].error, "kernels[1]: field 'nvcc_flags' must be a list of strings");
}

// --- files a suite reads ----------------------------------------------------------------------

TEST(HostileFiles, SourceFileMayNotLeaveTheSuiteFolder) {
    TempDir d;
    const fs::path suite = d.path() / "suite";
    d.write("outside.py", "def forward(x: Tensor) -> Tensor:\n    return x\n");
    d.write("suite/common/shared.py", "def forward(x: Tensor) -> Tensor:\n    return x\n");
    d.write("suite/L1/up.json", taskWithSource("H-up", "../../outside.py"));
    d.write("suite/L1/etc.json", taskWithSource("H-etc", "../../../../../../../../etc/passwd"));
    d.write("suite/L1/abs.json", taskWithSource("H-abs", "/etc/passwd"));
    fs::create_symlink(d.path() / "outside.py", suite / "L1" / "link.py");
    d.write("suite/L1/link.json", taskWithSource("H-link", "link.py"));
    fs::create_symlink("/etc/passwd", suite / "L1" / "passwd.py");
    d.write("suite/L1/passwd.json", taskWithSource("H-passwd", "passwd.py"));
    d.write("suite/L1/ok.json",
            taskWithSource("H-ok", "../common/shared.py")); // inside the suite: fine
    fs::create_symlink(d.path() / "outside.json", suite / "spec-link.json");
    d.write("outside.json", taskWithSource("H-outside-spec", "x.py"));

    const Suite s = loadSuiteDir(suite.string());
    ASSERT_NE(s.find("H-ok"), nullptr);
    EXPECT_HAS(s.find("H-ok")->source, "return x");
    for (const char* id : {"H-up", "H-etc", "H-abs", "H-link", "H-passwd", "H-outside-spec"})
        EXPECT_EQ(s.find(id), nullptr) << id << " loaded";
    auto issues = issuesOf(s);
    ASSERT_EQ(issues.size(), 6u);
    for (const char* f : {"up.json", "etc.json", "link.json", "passwd.json"}) {
        EXPECT_HAS(issues[f], std::string(f) + " (task ");
        EXPECT_HAS(issues[f], "cannot read source_file");
        EXPECT_HAS(issues[f], "is outside the suite folder");
    }
    EXPECT_HAS(issues["abs.json"],
               "'source_file' must be a path relative to the task file, got '/etc/passwd'");
    EXPECT_HAS(issues["spec-link.json"], "is outside the suite folder");
    for (const auto& [f, msg] : issues)
        EXPECT_EQ(msg.find("root:"), std::string::npos) << "passwd leaked: " << msg;
}

TEST(HostileFiles, ArtifactMayNotLeaveTheSuiteFolder) {
    TempDir d;
    d.write("model.pt", "not really a model");
    d.write("suite/t.json",
            R"({"kind":"kernelsieve.task","format_version":1,"id":"H-art","name":"n",
        "artifact":"../model.pt","exporter_version":"1.3","inputs":[{"name":"x","shape":[1]}]})");
    const Suite s = loadSuiteDir((d.path() / "suite").string());
    EXPECT_EQ(s.find("H-art"), nullptr);
    EXPECT_HAS(issuesOf(s)["t.json"], "artifact");
    EXPECT_HAS(issuesOf(s)["t.json"], "is outside the suite folder");
}

// The exporter's measured peak device memory (import.peak_device_bytes): read when it is a
// count, refused with the file and the field named when it is not.
TEST(HostileFiles, AnImportPeakMustBeAByteCount) {
    TempDir d;
    d.write("suite/model.pt", "not really a model");
    auto task = [](const std::string& id, const std::string& peak) {
        return R"({"kind":"kernelsieve.task","format_version":1,"id":")" + id + R"(","name":"n",
        "artifact":"model.pt","exporter_version":"1.3","inputs":[{"name":"x","shape":[1]}],
        "import":{"peak_device_bytes":)" + peak + R"(,"peak_device":"NVIDIA H200"}})";
    };
    d.write("suite/good.json", task("H-good", "123456789012"));
    d.write("suite/negative.json", task("H-neg", "-5"));
    d.write("suite/text.json", task("H-text", "\"lots\""));
    const Suite s = loadSuiteDir((d.path() / "suite").string());
    const TaskSpec* good = s.find("H-good");
    ASSERT_NE(good, nullptr);
    EXPECT_EQ(good->importPeakDeviceBytes, 123456789012);
    EXPECT_EQ(good->importPeakDevice, "NVIDIA H200");
    EXPECT_EQ(s.find("H-neg"), nullptr);
    EXPECT_EQ(s.find("H-text"), nullptr);
    auto issues = issuesOf(s);
    EXPECT_HAS(issues["negative.json"], "import.peak_device_bytes");
    EXPECT_HAS(issues["text.json"], "import.peak_device_bytes");
}

TEST(HostileFiles, FifoDeviceAndHugeSourcesAreRefusedWithoutHanging) {
    TempDir d;
    const fs::path suite = d.path() / "suite";
    fs::create_directories(suite);
    // A FIFO made `list` hang: opening one blocks until a writer comes, and no writer ever does
    // here.
    ASSERT_EQ(::mkfifo((suite / "fifo.py").c_str(), 0600), 0);
    d.write("suite/fifo.json", taskWithSource("H-fifo", "fifo.py"));
    // A FIFO named like a task file is not listed as one (it is not a regular file).
    ASSERT_EQ(::mkfifo((suite / "pipe.json").c_str(), 0600), 0);
    // 17 MiB of source: past MaxTaskFileBytes.
    {
        std::ofstream big(suite / "big.py", std::ios::binary);
        const std::string mb(1 << 20, '#');
        for (int i = 0; i < 17; ++i)
            big << mb;
    }
    d.write("suite/big.json", taskWithSource("H-big", "big.py"));
    const Suite s = loadSuiteDir(suite.string());
    auto issues = issuesOf(s);
    EXPECT_HAS(issues["fifo.json"], "fifo.py: is a FIFO, not a regular file");
    EXPECT_HAS(issues["big.json"], "larger than 16777216 bytes");
    EXPECT_EQ(issues.count("pipe.json"), 0u);
    EXPECT_TRUE(s.tasks.empty());

    // readFile itself, which the CLI and GUI use for profiles, results and bench files.
    EXPECT_HAS(errorOf([] { readFile("/dev/zero"); }),
               "/dev/zero: is a device, not a regular file");
    EXPECT_HAS(errorOf([&] { readFile((suite / "fifo.py").string()); }), "is a FIFO");
    EXPECT_HAS(errorOf([&] { readFile(suite.string()); }), "is a folder");
    EXPECT_HAS(errorOf([&] { readFile((suite / "big.py").string(), 1000); }),
               "larger than 1000 bytes");
    EXPECT_HAS(errorOf([&] { readFile((suite / "missing").string()); }), "cannot open for reading");
    // /proc files say size 0; they are read to the end all the same.
    EXPECT_HAS(readFile("/proc/self/status"), "Name:");
}

// --- inputs that crashed the fuzz targets (fuzz/, bench/fuzz/RESULTS.md) ------------------------

TEST(HostileFuzz, AnalysisReportFieldOfTheWrongTypeIsAnErrorNamingIt) {
    // fuzz_reports' first crash: a rewrite whose "implemented" holds a string. value<bool>() threw
    // nlohmann's type_error, which escaped the bare reader and read "type must be boolean, but is
    // string" inside a results file, naming no field.
    const std::string report = hostileFile("fuzz_report_implemented_string.json");
    std::string e = errorOf([&] { inefficiencyReportFromJson(nlohmann::json::parse(report)); });
    EXPECT_HAS(e, "field 'implemented' must be true or false, got \"%4 : Tensor");
    e = errorOf([&] {
        resultsFromJson(kResults + R"("tasks":[{"id":"L1-12","inefficiency":)" + report + "}]}",
                        "r.json");
    });
    EXPECT_HAS(e, "r.json: task L1-12: inefficiency: field 'implemented' must be true or false");
}

TEST(HostileFuzz, AnalysisReportCountsBeyondIntAreErrorsNotUndefinedBehaviour) {
    // value<int>() on 1e30 cast it to int: undefined behaviour, which UBSan stops at.
    const auto report = nlohmann::json::parse(hostileFile("fuzz_report_runs_1e30.json"));
    EXPECT_HAS(errorOf([&] { inefficiencyReportFromJson(report); }),
               "field 'runs' must be an integer in [0, 2147483647], got 1e+30");
    // The same report with a count that fits loads, with every field as written.
    nlohmann::json ok = report;
    ok["runs"] = 20;
    const InefficiencyReport r = inefficiencyReportFromJson(ok);
    EXPECT_EQ(r.runs, 20);
    EXPECT_EQ(r.launches, 2);
    ASSERT_EQ(r.rewrites.size(), 1u);
    EXPECT_TRUE(r.rewrites[0].implemented);
    EXPECT_TRUE(r.rewrites[0].equal);
    EXPECT_EQ(r.bestRule, "diag-matmul");

    using J = nlohmann::json;
    const std::vector<std::pair<std::function<void()>, std::string>> cases{
        {[] {
             inefficiencyReportFromJson(J{{"launches", -1}});
         },
         "field 'launches' must be an integer"},
        {[] {
             inefficiencyReportFromJson(J{{"tf32", 1}});
         },
         "field 'tf32' must be true or false"},
        {[] {
             inefficiencyReportFromJson(J{{"rewrites", J::array({5})}});
         },
         "field 'rewrites' holds a non-object: 5"},
        {[] {
             inefficiencyReportFromJson(J{{"rewrites", J::array({{{"line", 1e30}}})}});
         },
         "field 'line' must be an integer"},
        {[] {
             redundancyReportFromJson(J{{"seeds", "3"}});
         },
         "field 'seeds' must be an integer"},
        {[] {
             redundancyReportFromJson(J{{"ops_examined", 1e30}});
         },
         "field 'ops_examined' must be an integer"},
        {[] {
             redundancyReportFromJson(J{{"nodes", J::object()}});
         },
         "field 'nodes' must be a list"},
        {[] {
             redundancyReportFromJson(J{{"unused_arguments", J::array({{{"param", "no"}}})}});
         },
         "field 'param' must be true or false"},
        {[] {
             deviceCeilingsFromJson(J{{"threads", 1e30}});
         },
         "field 'threads' must be an integer"},
    };
    for (const auto& [load, says] : cases)
        EXPECT_HAS(errorOf(load), says);
}

TEST(HostileFuzz, CallPlanOfTheWrongShapeIsAnErrorNotACrash) {
    // fuzz_callplan: the bench worker's --plan. An empty one threw nlohmann's parse_error, and an
    // entry with neither input, param nor value read a missing key of a const object (undefined
    // behaviour; an assertion in nlohmann's debug builds).
    EXPECT_HAS(errorOf([] { callPlanFromJson(hostileFile("fuzz_callplan_empty_entry.json")); }),
               "call plan: args[0]: needs \"input\", \"param\" or a \"value\"");
    EXPECT_HAS(errorOf([] { callPlanFromJson(""); }), "call plan: not valid JSON");
    EXPECT_HAS(errorOf([] { callPlanFromJson(nested(1000)); }), "nested deeper than 512 levels");
    EXPECT_HAS(errorOf([] { callPlanFromJson("5"); }), "call plan: must be a list, got 5");
    EXPECT_HAS(errorOf([] { callPlanFromJson("[7]"); }), "args[0]: must be an object, got 7");
    EXPECT_HAS(errorOf([] { callPlanFromJson(R"([{"input":0},{"param":-1}])"); }),
               "args[1]: field 'param' must be an integer in [0, 2147483647], got -1");
    EXPECT_HAS(errorOf([] { callPlanFromJson(R"([{"input":4294967296}])"); }), "field 'input'");
    EXPECT_HAS(errorOf([] { callPlanFromJson(R"([{"value":{"a":1}}])"); }), "args[0]: needs");
    EXPECT_HAS(errorOf([] { callPlanFromJson(R"([{"input":0,"name":7}])"); }),
               "field 'name' must be a string, got 7");
    // What callPlanToJson writes reads back as it was.
    const std::vector<CallArg> plan{{CallArg::Kind::Input, 0, "x", ""},
                                    {CallArg::Kind::Param, 1, "w", ""},
                                    {CallArg::Kind::Value, -1, "", "[1,2]"}};
    const std::vector<CallArg> back = callPlanFromJson(callPlanToJson(plan));
    ASSERT_EQ(back.size(), 3u);
    for (size_t i = 0; i < plan.size(); ++i) {
        EXPECT_EQ(back[i].kind, plan[i].kind) << i;
        EXPECT_EQ(back[i].index, plan[i].index) << i;
        EXPECT_EQ(back[i].name, plan[i].name) << i;
        EXPECT_EQ(back[i].valueJson, plan[i].valueJson) << i;
    }
}

TEST(HostileFuzz, TaskIdsWithDigitTailsBeyondInt64SortWithoutThrowing) {
    // Natural order converted each id's digit tail with stoll, whose out_of_range on a 20-digit
    // tail escaped loadSuiteDir (and crashed fuzz_suite). Tails compare as numbers of any length.
    const Suite s = loadSuiteDir(std::string(KS_TEST_DATA) + "/hostile/fuzz_suite_long_ids");
    EXPECT_TRUE(s.issues.empty());
    std::vector<std::string> ids;
    for (const auto& t : s.tasks)
        ids.push_back(t.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"KS-9", "KS-23456789012345678901234",
                                             "KS-0123456789012345678901233",
                                             "KS-123456789012345678901234"}));
}
