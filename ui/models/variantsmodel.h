// SPDX-License-Identifier: MIT
#pragma once
// One task's kernels: the PyTorch eager baseline and each variant (built in or external, see
// docs/external-kernels.md) with its verdict, the guards that fired, validation and timing.

#include "resultsutil.h"

#include <QAbstractTableModel>

#include <optional>

class VariantsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Columns {
        // The verdict, what the corpus expected and why (guards) side by side, then the numbers.
        NameColumn,
        FormatColumn,
        VerdictColumn,
        ExpectColumn,
        GuardsColumn,
        SpeedupColumn,
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

    explicit VariantsModel(QObject* parent = nullptr);

    void setTask(const ks::TaskBench* task); // nullptr clears

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

  private:
    QVariant display(int row, int column, const ks::VariantResult* v) const;
    QVariant toolTip(int row, int column, const ks::VariantResult* v) const;
    QVariant background(int row, int column, const ks::VariantResult* v) const;

    std::optional<ks::TaskBench> m_task;
    std::vector<ResultsUtil::SpeedupBar> m_bars;
};
