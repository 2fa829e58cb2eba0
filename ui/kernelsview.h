// SPDX-License-Identifier: MIT
#pragma once
// Kernels of the selected task (or of every task with kernels) from a kernelsieve.bench file:
// the speedup chart, the timing distribution of one variant, and the variants table with each
// kernel's verdict (external kernels too: any task of the suite, with or without built-in
// variants). Flags come from the filter matrix, so a speedup on a flawed task is marked under
// the current thresholds.

#include <ks/core/benchresults.h>

#include <QWidget>

#include <optional>

class ChartWidget;
class FilterMatrixModel;
class QComboBox;
class QLabel;
class QTableView;
class SpeedupChart;
class TimingChart;
class VariantsModel;

class KernelsView : public QWidget {
    Q_OBJECT
  public:
    enum class Scope { SelectedTask, AllTasks };

    explicit KernelsView(FilterMatrixModel* model, QWidget* parent = nullptr);

    void setBench(const ks::BenchRun& bench);
    void clearBench();
    bool hasBench() const { return m_bench.has_value(); }
    const ks::BenchRun* bench() const { return m_bench ? &*m_bench : nullptr; }
    void setTask(const QString& id);
    void setScope(Scope scope);
    Scope scope() const;

    SpeedupChart* speedupChart() const { return m_speedup; }
    TimingChart* timingChart() const { return m_timing; }
    QList<ChartWidget*> charts() const;
    QComboBox* variantBox() const { return m_variant; }
    QComboBox* scopeBox() const { return m_scope; }
    QTableView* variantsTable() const { return m_table; }
    VariantsModel* variantsModel() const { return m_variants; }
    QLabel* infoLabel() const { return m_info; }

  private:
    void rebuild();
    void updateTiming();
    QHash<QString, QStringList> flaws() const;
    const ks::TaskBench* benchTask(const QString& id) const;
    QString resultsId(const ks::TaskBench& task) const;
    void fitColumns();

    FilterMatrixModel* m_model;
    std::optional<ks::BenchRun> m_bench;
    QString m_id;
    QString m_variantTask; // task whose variants fill m_variant
    QLabel* m_info = nullptr;
    QComboBox* m_scope = nullptr;
    QComboBox* m_variant = nullptr;
    SpeedupChart* m_speedup = nullptr;
    TimingChart* m_timing = nullptr;
    VariantsModel* m_variants = nullptr;
    QTableView* m_table = nullptr;
};
