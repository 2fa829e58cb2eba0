// SPDX-License-Identifier: MIT
#pragma once
// Base of every chart: a QCustomPlot with a title, an empty-state message, and export to PNG or
// PDF (by file suffix) from code, the main window's Export Chart action, or the context menu.

#include <qcustomplot.h>

class ChartWidget : public QCustomPlot {
    Q_OBJECT
  public:
    explicit ChartWidget(const QString& title, QWidget* parent = nullptr);

    void setTitle(const QString& title);
    QString title() const;

    // A warning line under the title (e.g. "speedup on a flawed task"); empty removes it.
    void setWarning(const QString& text);
    QString warning();

    // A centred message instead of data ("select a task", "no kernels for L1-1").
    void showMessage(const QString& message);
    QString message() {
        flush();
        return m_message;
    }
    // True when the last rebuild drew data (bars, graphs), false after showMessage().
    bool hasData() {
        flush();
        return m_hasData;
    }
    // Builds the chart now if a rebuild was deferred while it was hidden.
    void flush();

    // Writes the chart as PNG or PDF, chosen by the suffix of `path`; fixed size so exports do
    // not depend on the window. Returns false and sets `error` if the file cannot be written.
    bool exportTo(const QString& path, QString* error = nullptr, int width = 1200,
                  int height = 700);

    QSize sizeHint() const override { return {420, 260}; }
    QSize minimumSizeHint() const override { return {220, 160}; }

  protected:
    // Draws the chart from the subclass's stored data.
    virtual void rebuild() {}
    // Rebuilds now if the chart is on screen; otherwise when it is next shown (or exported).
    // Hidden tabs then cost nothing when thresholds change: re-thresholding stays O(visible).
    void scheduleRebuild();
    void showEvent(QShowEvent* event) override;

    // Starts a fresh plot: no plottables, items or tickers left over from the previous task.
    void resetPlot();
    void setHasData(bool on) { m_hasData = on; }
    // Remembers the current axis ranges as the "Reset zoom" target.
    void rememberHomeRange();
    void contextMenuEvent(QContextMenuEvent* event) override;

  private:
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_warning = nullptr;
    QString m_message;
    bool m_hasData = false;
    bool m_dirty = false;
    QCPRange m_homeX, m_homeY;
};
