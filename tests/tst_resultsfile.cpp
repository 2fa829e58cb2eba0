// SPDX-License-Identifier: MIT
// ks::ResultsSink and writeFileAtomic: no results file is ever lost or half written (issue 15).
#include "ks/core/results.h"
#include "ks/core/resultsfile.h"
#include "ks/core/resultsmerge.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ks;
namespace fs = std::filesystem;

namespace {

class ResultsFile : public ::testing::Test {
protected:
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("ks_resultsfile_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string path(const char* name) const { return (dir / name).string(); }
};

RunInfo run(int seeds = 5, std::string device = "cpu") {
    RunInfo r;
    r.suite = "builtin";
    r.preset = "small";
    r.device = std::move(device);
    r.deviceName = "test cpu";
    r.seeds = seeds;
    r.seedSemantics = "cpu-generator, inputs-then-params";
    return r;
}

TaskResult task(const std::string& id) {
    TaskResult t;
    t.id = id;
    t.name = id + "_name";
    t.seeds = 5;
    return t;
}

RunResults results(const RunInfo& info, std::vector<std::string> ids) {
    RunResults r;
    r.run = info;
    r.thresholds = Thresholds::defaults();
    for (const auto& id : ids) r.tasks.push_back(task(id));
    return r;
}

std::string slurp(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}

} // namespace

TEST_F(ResultsFile, SecondSinkOnOneFileIsRefusedWhileTheFirstHoldsIt) {
    const std::string out = path("r.json");
    {
        ResultsSink first(out, {});
        try {
            ResultsSink second(out, {});
            FAIL() << "two sinks on one file";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("another kernelsieve run is writing it (pid " + std::to_string(::getpid())),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_FALSE(fs::exists(ResultsSink::lockPath(out))) << "the lock file outlives its run";
    ResultsSink again(out, {}); // released with the first
}

TEST_F(ResultsFile, MissingFolderIsFoundBeforeTheRun) {
    try {
        ResultsSink s(path("nope/r.json"), {});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist; nothing was run"), std::string::npos) << e.what();
    }
}

TEST_F(ResultsFile, JournalHoldsFinishedTasksAndResumeContinuesIt) {
    const std::string out = path("r.json");
    {
        ResultsSink s(out, {});
        s.begin(run(), Thresholds::defaults(), {"A", "B", "C"});
        s.append(task("A"));
        s.append(task("B"));
        // dies here: no finish()
    }
    ASSERT_TRUE(fs::exists(ResultsSink::journalPath(out)));
    EXPECT_FALSE(fs::exists(out));
    // A half-written last line (killed mid-write) is not a finished task.
    { std::ofstream(ResultsSink::journalPath(out), std::ios::app) << "{\"id\":\"C\",\"na"; }
    try {
        ResultsSink s(out, {});
        FAIL() << "an unfinished journal was silently discarded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("did not finish (2 tasks saved in it)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos);
    }
    ResultsSink s(out, {false, true});
    ASSERT_EQ(s.resumedTasks().size(), 2u);
    EXPECT_EQ(s.resumedTasks()[1].id, "B");
    ASSERT_NE(s.resumedRun(), nullptr);
    EXPECT_EQ(s.resumedRun()->seeds, 5);
    EXPECT_THROW(s.begin(run(3), Thresholds::defaults(), {"A", "B", "C"}), Error) << "other seeds";
    s.begin(run(), Thresholds::defaults(), {"A", "B", "C"});
    s.append(task("C"));
    s.finish(results(run(), {"A", "B", "C"}));
    EXPECT_FALSE(fs::exists(ResultsSink::journalPath(out)));
    EXPECT_EQ(resultsFromJson(slurp(out), out).tasks.size(), 3u);
}

TEST_F(ResultsFile, AnotherRunsFileIsKeptAndTheResultsGoNextToIt) {
    const std::string out = path("r.json");
    writeFileAtomic(out, resultsToJson(results(run(5, "cuda"), {"A", "B"})));
    const std::string before = slurp(out);
    ResultsSink s(out, {});
    s.begin(run(), Thresholds::defaults(), {"A"});
    EXPECT_EQ(s.path(), path("r-2.json"));
    EXPECT_NE(s.note().find("device cuda test cpu (this run: cpu test cpu)"), std::string::npos) << s.note();
    EXPECT_NE(s.note().find("1 of its 2 tasks are not in this run (e.g. B)"), std::string::npos) << s.note();
    s.finish(results(run(), {"A"}));
    EXPECT_EQ(slurp(out), before);
    EXPECT_TRUE(fs::exists(path("r-2.json")));
}

TEST_F(ResultsFile, SameRunReplacesAndKeepsABackup) {
    const std::string out = path("r.json");
    writeFileAtomic(out, resultsToJson(results(run(), {"A"})));
    const std::string before = slurp(out);
    ResultsSink s(out, {});
    s.begin(run(), Thresholds::defaults(), {"A", "B"});
    EXPECT_EQ(s.path(), out);
    EXPECT_TRUE(s.note().empty()) << s.note();
    s.finish(results(run(), {"A", "B"}));
    EXPECT_EQ(slurp(out + ".bak"), before);
    EXPECT_EQ(resultsFromJson(slurp(out), out).tasks.size(), 2u);
}

TEST_F(ResultsFile, NotAResultsFileIsNeverReplacedWithoutForce) {
    const std::string out = path("notes.json");
    { std::ofstream(out) << "my notes, not results\n"; }
    ResultsSink s(out, {});
    s.begin(run(), Thresholds::defaults(), {"A"});
    EXPECT_EQ(s.path(), path("notes-2.json"));
    EXPECT_NE(s.note().find("not a results file this run may replace"), std::string::npos) << s.note();
}

// A full disk shows as a failed write (here the file-size limit, which fails the same write()
// with EFBIG): the error names the file and the old file stays whole.
TEST_F(ResultsFile, FailedWriteKeepsTheOldFile) {
    const std::string out = path("r.json");
    writeFileAtomic(out, std::string(1000, 'x'));
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit lim{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &lim);
        try {
            writeFileAtomic(out, std::string(1 << 20, 'y'));
            ::_exit(1);
        } catch (const Error& e) {
            const std::string what = e.what();
            ::_exit(what.find(out) != std::string::npos && what.find("is unchanged") != std::string::npos ? 0 : 2);
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the write did not fail; 2: the message lacks the path or the reassurance";
    EXPECT_EQ(slurp(out), std::string(1000, 'x'));
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << "left " << e.path();
}

TEST_F(ResultsFile, FailedJournalWriteSaysTheSavedTasksAreKept) {
    const std::string out = path("r.json");
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        try {
            ResultsSink s(out, {});
            s.begin(run(), Thresholds::defaults(), {"A", "B"});
            s.append(task("A"));
            std::signal(SIGXFSZ, SIG_IGN);
            const auto size = static_cast<rlim_t>(fs::file_size(ResultsSink::journalPath(out)));
            rlimit lim{size + 10, size + 10};
            ::setrlimit(RLIMIT_FSIZE, &lim);
            s.append(task("B"));
            ::_exit(1);
        } catch (const Error& e) {
            ::_exit(std::string(e.what()).find("the tasks saved before it are kept there") != std::string::npos ? 0 : 2);
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    ResultsSink s(out, {false, true});
    ASSERT_EQ(s.resumedTasks().size(), 1u) << "the task saved before the failure";
    EXPECT_EQ(s.resumedTasks()[0].id, "A");
}

// ---- merge of shards (resultsmerge.h) --------------------------------------------------------

TEST(ResultsMerge, ShardPositionsCoverEveryTaskOnce) {
    std::vector<int> hits(10, 0);
    for (int k = 1; k <= 3; ++k)
        for (size_t i : shardPositions(10, k, 3)) ++hits[i];
    for (int h : hits) EXPECT_EQ(h, 1);
    EXPECT_EQ(shardPositions(10, 2, 3), (std::vector<size_t>{1, 4, 7}));
    EXPECT_TRUE(shardPositions(10, 4, 3).empty());
}

TEST(ResultsMerge, ShardsComeBackInTheSingleRunsOrder) {
    const std::vector<std::string> ids = {"A", "B", "C", "D", "E"};
    std::vector<ResultsPart> parts;
    for (int k : {2, 1}) { // in any order
        RunInfo info = run();
        info.shardIndex = k;
        info.shardCount = 2;
        std::vector<std::string> mine;
        for (size_t i : shardPositions(ids.size(), k, 2)) mine.push_back(ids[i]);
        RunResults r = results(info, mine);
        for (auto& t : r.tasks) t.specJson = "{}"; // ran tasks, not load failures
        parts.push_back({"s" + std::to_string(k) + ".json", r});
    }
    const RunResults m = mergeResults(parts);
    std::vector<std::string> got;
    for (const auto& t : m.tasks) got.push_back(t.id);
    EXPECT_EQ(got, ids);
    EXPECT_EQ(m.run.shardCount, 0);
    ASSERT_EQ(m.run.mergedFrom.size(), 2u);
    EXPECT_NE(m.run.mergedFrom[0].find("s2.json: shard 2/2, 2 tasks"), std::string::npos) << m.run.mergedFrom[0];
    // Round trip of the provenance and of a shard's record.
    const RunResults back = resultsFromJson(resultsToJson(m), "m.json");
    EXPECT_EQ(back.run.mergedFrom, m.run.mergedFrom);
    const RunResults shard = resultsFromJson(resultsToJson(parts[0].results), "s.json");
    EXPECT_EQ(shard.run.shardIndex, 2);
    EXPECT_EQ(shard.run.shardCount, 2);
    // Two shards 1 of 2: refused, naming both files.
    std::vector<ResultsPart> twice = {parts[1], parts[1]};
    twice[1].path = "copy.json";
    EXPECT_THROW(mergeResults(twice), Error);
}
