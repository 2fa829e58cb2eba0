// SPDX-License-Identifier: MIT
#pragma once
// Base of every chart: a QCustomPlot with a title, an empty-state message, and export to PNG or
// PDF (by file suffix) from code, the main window's Export Chart action, or the context menu.

#include <qcustomplot.h>

class ChartWidget : public QCustomPlot
{
    Q_OBJECT
public:
    explicit ChartWidget(const QString& title, QWidget* parent = nullptr);

    void setTitle(const QString& title);
    QString title() const;

    // A warning line under the title (e.g. "speedup on a flawed task"); empty removes it.
    void setWarning(const QString& text);
    QString warning() const;

    // A centred message instead of data ("select a task", "no kernels for L1-1").
    void showMessage(const QString& message);
    QString message() const { return m_message; }
    // True when the last rebuild drew data (bars, graphs), false after showMessage().
    bool hasData() const { return m_hasData; }

    // Writes the chart as PNG or PDF, chosen by the suffix of `path`; fixed size so exports do
    // not depend on the window. Returns false and sets `error` if the file cannot be written.
    bool exportTo(const QString& path, QString* error = nullptr, int width = 1200, int height = 700);

    QSize sizeHint() const override { return {420, 260}; }
    QSize minimumSizeHint() const override { return {220, 160}; }

protected:
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
    QCPRange m_homeX, m_homeY;
};
