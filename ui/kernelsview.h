// SPDX-License-Identifier: MIT
#pragma once
// Kernels of the selected task (or of every task with kernels) from a kernelsieve.bench file:
// the speedup chart, the timing distribution of one variant, and the variants table. Flags come
// from the filter matrix, so a speedup on a flawed task is marked under the current thresholds.

#include <ks/core/benchresults.h>

#include <QWidget>

#include <optional>

class ChartWidget;
class FilterMatrixModel;
class QComboBox;
class QLabel;
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

  private:
    void rebuild();
    void updateTiming();
    QHash<QString, QStringList> flaws() const;
    const ks::TaskBench* benchTask(const QString& id) const;

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
};
