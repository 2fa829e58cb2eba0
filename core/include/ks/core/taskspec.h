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
    // Exponential: torch.empty(shape).exponential_(lambd), how torch.distributions' Exponential
    // and Pareto sample (Pareto: exponential_() / alpha, then exp, then * scale; exporter 1.6).
    enum class Kind { Normal, Uniform, RandInt, KaimingUniform, Constant, Exponential };
    Kind kind = Kind::Normal;
    double a = 0.0; // normal: mean, uniform/randint: low, constant: value, exponential: lambd
    double b = 1.0; // normal: std, uniform/randint: high
    std::optional<double> fanIn;  // kaiming_uniform: explicit fan-in
    std::string fanInOf;          // kaiming_uniform: take the fan-in of this parameter's shape
    // kaiming_uniform: PyTorch's nn.init.kaiming_uniform_(w, a) bound, sqrt(3) * sqrt(2 / (1 + a^2)) /
    // sqrt(fan); without it the bound is 1 / sqrt(fan) (the bias rule). Linear/Conv weights use a = sqrt(5).
    std::optional<double> gainA;
    // normal/uniform: drawn by PyTorch's in-place sampler, torch.empty(shape).normal_(mean, std) /
    // .uniform_(low, high), as nn.init and module constructors draw. That rounds differently from
    // randn * std + mean (the default, what `torch.randn(...) * s + t` in a task file does).
    bool inplace = false;
};
const char* distributionName(Distribution::Kind k);

struct Transform {
    // Each replays the PyTorch call it is named after, so structured inputs (triangular,
    // symmetric, positive) are drawn exactly, not approximated by a fitted normal.
    enum class Kind { Softmax, LogSoftmax, Abs, Affine, Triu, Tril, AddTranspose, MatmulTranspose, Exp, Div };
    Kind kind = Kind::Abs;
    int64_t dim = -1;      // softmax/log_softmax: dim; triu/tril: diagonal
    double value = 1.0;    // div: divisor
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
    // A draw the original made into this tensor before overwriting it (nn.MultiheadAttention's
    // out_proj.bias: Linear's uniform bias, then nn.init.constant_ 0). The engine draws it first
    // and discards it, so the generator advances as the original's did and every later tensor
    // is the original's. Spec field "draw_before" (exporter 1.4).
    std::optional<Distribution> drawBefore;
    // Draws the original made before this tensor that no tensor kept (a constructor that lets every
    // layer draw its default init, then draws them all again in an init loop): each drawn at its
    // literal shape and discarded, in order, before drawBefore and this tensor. Spec field
    // "discard_before": [{"shape": [...], "init": {...}}] (exporter 1.6).
    struct Discard {
        std::vector<int64_t> shape;
        Distribution init;
    };
    std::vector<Discard> discardBefore;
    // A parameter the original made as a copy of an earlier one (copy.deepcopy: nn.TransformerEncoder
    // clones its layer N times, so its layers start equal): not drawn, a copy of that parameter's
    // tensor of the same seed. Spec field "copy_of" (its name; exporter 1.5); -1: drawn. The
    // parameter's index in TaskSpec::params, always an earlier one of the same shape and dtype.
    std::string copyOfName;
    int copyOf = -1;
    // Set by the exporter when it could not express how the original file made this tensor: the
    // engine then draws another sample (the spec's init), and this says why. Results and the CSV
    // list these tensors ("approximated"). Old specs' `"inferred": false` + `note` reads the same.
    std::string approximated;
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
    // The exporter's eager forward on CUDA (import.peak_device_bytes / peak_device): its peak
    // device memory at the spec's shapes, a lower bound of what a filter run needs; 0 = unknown.
    int64_t importPeakDeviceBytes = 0;
    std::string importPeakDevice;
    std::vector<std::string> warnings; // non-fatal load notes (also appended to `description`)
    std::string specPath;   // the JSON file (for messages)
    std::string specText;   // the JSON as written, kept so results files carry the spec verbatim
    std::string entry = "forward";
    std::map<std::string, std::map<std::string, int64_t>> dims; // preset name -> dim -> size
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> params;
    std::vector<std::string> tags;
    // Imported tasks whose forward calls torch.manual_seed(N) before any random op: the engine seeds
    // the generators with N right before each forward call, as the original forward does.
    std::optional<int64_t> forwardSeed;

    bool hasTag(const std::string& t) const;
    // Concrete shape of a tensor at a preset; throws ks::Error naming the task for unknown dims.
    std::vector<int64_t> shapeOf(const TensorSpec& t, Preset p) const;
    // Its element count (negative dims count 0); throws as shapeOf does.
    int64_t elementsOf(const TensorSpec& t, Preset p) const;
    // Fan-in PyTorch would use for this parameter (kaiming_uniform).
    double fanInOf(const TensorSpec& t, Preset p) const;
    // The named dims of `dims` (any preset), sorted.
    std::vector<std::string> dimNames() const;
    // Sets named dims at preset `p` (a run's `--dim NAME=SIZE`, e.g. softmax rows of 393216);
    // names this task does not have are left alone. Returns the names it set.
    std::vector<std::string> overrideDims(Preset p, const std::map<std::string, int64_t>& sizes);
    // Names of the inputs and parameters marked approximated, in spec order.
    std::vector<std::string> approximatedTensors() const;
};

// Names of the inputs and parameters a task JSON marks approximated, in spec order (results files
// carry the spec as text; the CSV and the GUI read it from there). Empty for text that is no spec.
std::vector<std::string> approximatedTensorsInSpec(const std::string& specJson);

// Parses one task JSON text. `path` is used in messages and to resolve `source_file`
// through `readFile` (so embedded suites need no file system). Throws ks::Error.
TaskSpec parseTaskSpec(const std::string& jsonText, const std::string& path,
                       const std::function<std::string(const std::string&)>& readFile);

} // namespace ks
