// SPDX-License-Identifier: MIT
#pragma once
// Task specs: what a task computes (TorchScript source) and how its tensors are drawn.
// Plain value types with no torch or Qt, so the GUI and the loaders can use them cheaply.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ks {

// Thrown for any user-facing problem with a file or a task; the message names the file or task.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Artifacts written by an exporter with another major version are refused (their calling
// convention or metadata may differ); minor versions only add fields.
inline constexpr int ExporterMajorVersion = 1;

enum class Preset { Small, Full };
const char* presetName(Preset p);
std::optional<Preset> parsePreset(const std::string& s);

struct Distribution {
    enum class Kind { Normal, Uniform, RandInt, KaimingUniform, Constant };
    Kind kind = Kind::Normal;
    double a = 0.0; // normal: mean, uniform/randint: low, constant: value
    double b = 1.0; // normal: std, uniform/randint: high
    std::optional<double> fanIn;  // kaiming_uniform: explicit fan-in
    std::string fanInOf;          // kaiming_uniform: take the fan-in of this parameter's shape
};
const char* distributionName(Distribution::Kind k);

struct Transform {
    enum class Kind { Softmax, LogSoftmax, Abs, Affine };
    Kind kind = Kind::Abs;
    int64_t dim = -1;
    double scale = 1.0;
    double shift = 0.0;
};

// One dimension of a shape: a literal size or a name looked up in the preset's dims.
struct Dim {
    int64_t value = 0;
    std::string name; // empty = literal
};

struct TensorSpec {
    std::string name;
    std::vector<Dim> shape;
    std::string dtype = "float32";
    Distribution init;
    std::vector<Transform> post;
};

struct TaskSpec {
    std::string id;
    int level = 0;
    int number = 0;
    std::string name;
    std::string category;
    std::string description;
    std::string source;     // TorchScript source (imported tasks: the original Python, display only)
    std::string sourcePath; // where the source came from (for messages); may be empty
    // Imported tasks (kernelsieve-cli import-kernelbench): a traced TorchScript module called as
    // forward(*inputs, *params); when set, `source` is not compiled. Resolved against the JSON's folder.
    std::string artifactPath;
    std::string exporterVersion; // version of the exporter that wrote the artifact ("1.0")
    std::string torchVersion;    // torch the artifact was traced with
    std::vector<std::string> warnings; // non-fatal load notes (also appended to `description`)
    std::string specPath;   // the JSON file (for messages)
    std::string specText;   // the JSON as written, kept so results files carry the spec verbatim
    std::string entry = "forward";
    std::map<std::string, std::map<std::string, int64_t>> dims; // preset name -> dim -> size
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> params;
    std::vector<std::string> tags;

    bool hasTag(const std::string& t) const;
    // Concrete shape of a tensor at a preset; throws ks::Error naming the task for unknown dims.
    std::vector<int64_t> shapeOf(const TensorSpec& t, Preset p) const;
    // Fan-in PyTorch would use for this parameter (kaiming_uniform).
    double fanInOf(const TensorSpec& t, Preset p) const;
    // The named dims of `dims` (any preset), sorted.
    std::vector<std::string> dimNames() const;
    // Sets named dims at preset `p` (a run's `--dim NAME=SIZE`, e.g. softmax rows of 393216);
    // names this task does not have are left alone. Returns the names it set.
    std::vector<std::string> overrideDims(Preset p, const std::map<std::string, int64_t>& sizes);
};

// Parses one task JSON text. `path` is used in messages and to resolve `source_file`
// through `readFile` (so embedded suites need no file system). Throws ks::Error.
TaskSpec parseTaskSpec(const std::string& jsonText, const std::string& path,
                       const std::function<std::string(const std::string&)>& readFile);

} // namespace ks
