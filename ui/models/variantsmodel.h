// SPDX-License-Identifier: MIT
#pragma once
// One task's kernels: the PyTorch eager baseline and each variant (built in or external, see
// docs/external-kernels.md) with its verdict, the guards that fired, validation and timing. With
// several bench files (built-in and external kernels, two devices), the task's rows of each file
// one after the other, tagged with the file and its device in the File column.
//
// The columns are one table (columnSpecs(): title, header tooltip, whether the column hides when
// nothing in it says anything); a new column is an enum value, a row of that table and its case
// in display() (and toolTip() / background() where it has one).

#include "resultsutil.h"

#include <QAbstractTableModel>

#include <optional>
#include <utility>
#include <vector>

class VariantsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        // The file a row comes from (shown with several files), the verdict, what the corpus
        // expected and why (guards) side by side, then the numbers.
        FileColumn,
        NameColumn,
        FormatColumn,
        VerdictColumn,
        ExpectColumn,
        GuardsColumn,
        SpeedupColumn,
        VsCompiledColumn, // against the compiled (AOTInductor) baseline, when the file has it
        VsGraphColumn,    // against eager replayed from a CUDA graph
        ValidationColumn,
        PrecisionColumn,
        MedianColumn,
        IqrColumn,
        BandwidthColumn,
        NoteColumn,
        ColumnCount
    };
    enum Roles {
        // ks::variantVerdict as is ("cheat", "compile error"; "reference" for the baseline),
        // on every column: the view's colours and the tests do not parse the shown text.
        VerdictRole = Qt::UserRole + 1,
        // The manifest's `expect` against the verdict (ExpectColumn): true, false, or invalid.
        ExpectMetRole,
    };

    // One column of the table: what headerData() and columnUsed() read.
    struct ColumnSpec {
        Columns column;
        const char* title;
        const char* toolTip;   // header tooltip; nullptr: none
        bool hiddenWhenUnused; // hidden unless some row has something to say in it
    };
    static const std::vector<ColumnSpec>& columnSpecs();

    // One bench file's rows of the task: the task as that file has it, and the tag its rows
    // carry ("bench.json · NVIDIA H200").
    struct Source {
        const ks::TaskBench* task = nullptr;
        QString file;
        QString device;
    };

    explicit VariantsModel(QObject* parent = nullptr);

    void setTask(const ks::TaskBench* task); // one file; nullptr clears
    void setSources(const std::vector<Source>& sources);
    int sourceCount() const { return static_cast<int>(m_parts.size()); }
    // The source (index into setSources()' list) and the variant (-1: a baseline) of a row.
    int sourceOf(int row) const;
    int variantOf(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Verdicts that mean "this speedup is not a result": red in the table, struck out speedup.
    static bool isBadVerdict(const QString& verdict);
    // Whether a column says anything for this task: Expect needs a kernel from a corpus
    // manifest, Precision an external kernel's ratio. The view hides the ones that do not, so
    // a bench of built-in variants keeps its short table.
    bool columnUsed(int column) const;

    // Enum order is column order: the spec of `column`.
    static const ColumnSpec& spec(int column);

  private:
    struct Part {
        ks::TaskBench task;
        QString file, device;
        std::vector<ResultsUtil::SpeedupBar> bars; // the baselines (eager first), then the variants
    };
    // The row's baseline run other than eager (compiled, graph), or nullptr; the row's timing.
    static const ks::BaselineRun* otherBaseline(const Part& part, const ResultsUtil::SpeedupBar& bar);
    static const ks::TimingStats& timingOf(const Part& part, const ResultsUtil::SpeedupBar& bar,
                                           const ks::VariantResult* v);
    QVariant display(const Part& part, int r, int column, const ks::VariantResult* v) const;
    QVariant toolTip(const Part& part, int r, int column, const ks::VariantResult* v) const;
    QVariant background(const Part& part, int r, int column, const ks::VariantResult* v) const;

    std::vector<Part> m_parts;
    std::vector<std::pair<int, int>> m_rows; // (part, bar index: 0 = baseline)
};
