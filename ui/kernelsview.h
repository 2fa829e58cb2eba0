// SPDX-License-Identifier: MIT
#pragma once
// Kernels of the selected task (or of every task with kernels) from kernelsieve.bench files: the
// speedup chart, the timing distribution of one variant, and the variants table with each
// kernel's verdict (external kernels too: any task of the suite, with or without built-in
// variants). Flags come from the filter matrix, so a speedup on a flawed task is marked under
// the current thresholds.
//
// Several bench files at once (built-in and external kernels, two devices, a re-run): the rows
// of each are tagged with the file and its device, the chart's groups with the file; "Files"
// narrows to one. The run bar launches `validate` or `bench` for the tasks selected in the
// matrix (kernelRunRequested; the main window runs it in the worker, with progress and cancel
// as for filter runs, and adds its results here as one more file).

#include <models/variantsmodel.h>

#include <ks/core/benchresults.h>

#include <QWidget>

#include <optional>

class ChartWidget;
class FilterMatrixModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class SpeedupChart;
class TimingChart;
class VariantsModel;

class KernelsView : public QWidget {
    Q_OBJECT
  public:
    enum class Scope { SelectedTask, AllTasks };

    explicit KernelsView(FilterMatrixModel* model, QWidget* parent = nullptr);

    // Replaces every open bench file with this one.
    void setBench(const ks::BenchRun& bench, const QString& label = {}, const QString& path = {});
    // One more file beside the open ones; a file of the same path replaces its earlier copy.
    // `label`: how its rows are tagged (default: the file name, else the device).
    void addBench(const ks::BenchRun& bench, const QString& label = {}, const QString& path = {});
    void removeBench(int index);
    void clearBench();
    bool hasBench() const { return !m_benches.empty(); }
    int benchCount() const { return static_cast<int>(m_benches.size()); }
    const ks::BenchRun* bench(int index = 0) const;
    QString benchLabel(int index) const;
    QString benchPath(int index) const;
    // "All files" (item data -1) or one file (its index).
    QComboBox* fileBox() const { return m_files; }

    // The kernel run bar: what to run, an optional external kernels path (empty: the built-in
    // variants), and the button (enabled by setRunEnabled()).
    QComboBox* runCommandBox() const { return m_runCommand; }
    QLineEdit* kernelsPathEdit() const { return m_kernelsPath; }
    QPushButton* runButton() const { return m_runButton; }
    void setRunEnabled(bool enabled, const QString& why = {});
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

  signals:
    // "validate" or "bench", and the kernels path (empty: built-in variants).
    void kernelRunRequested(const QString& command, const QString& kernels);

  private:
    struct BenchFile {
        ks::BenchRun run;
        QString label, path;
    };
    // The files shown (all, or the one "Files" names), as indices into m_benches.
    std::vector<int> shownFiles() const;
    // The chart's id of a task of file `file`: the task id, tagged with the file when several
    // files are shown ("L1-23 [bench.json]").
    QString chartId(int file, const ks::TaskBench& task) const;
    QString fileTag(int file) const; // "[1]": the file's index, as its rows and bars name it
    void rebuildFileBox();
    void rebuild();
    void updateTiming();
    QHash<QString, QStringList> flaws() const;
    const ks::TaskBench* benchTask(int file, const QString& id) const;
    QString resultsId(const ks::TaskBench& task) const;
    QString fileInfoText(const BenchFile& f) const;
    void fitColumns();

    FilterMatrixModel* m_model;
    std::vector<BenchFile> m_benches;
    QString m_id;
    QString m_variantTask; // task whose variants fill m_variant
    QLabel* m_info = nullptr;
    QComboBox* m_scope = nullptr;
    QComboBox* m_variant = nullptr;
    SpeedupChart* m_speedup = nullptr;
    TimingChart* m_timing = nullptr;
    VariantsModel* m_variants = nullptr;
    QTableView* m_table = nullptr;
    // What the timing combo's items point at (its SourceRole): the table's sources.
    std::vector<VariantsModel::Source> m_timingSources;
    static constexpr int SourceRole = Qt::UserRole + 1;
    QComboBox* m_files = nullptr;
    QComboBox* m_runCommand = nullptr;
    QLineEdit* m_kernelsPath = nullptr;
    QPushButton* m_runButton = nullptr;
};
