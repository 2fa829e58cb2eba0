// SPDX-License-Identifier: MIT
#include "chartwidget.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

ChartWidget::ChartWidget(const QString& title, QWidget* parent) : QCustomPlot(parent) {
    plotLayout()->insertRow(0);
    QFont font = this->font();
    font.setBold(true);
    m_title = new QCPTextElement(this, title, font);
    plotLayout()->addElement(0, 0, m_title);
    setNoAntialiasingOnDrag(true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setContextMenuPolicy(Qt::DefaultContextMenu);
}

void ChartWidget::setTitle(const QString& title) {
    m_title->setText(title);
}

QString ChartWidget::title() const {
    return m_title->text();
}

void ChartWidget::setWarning(const QString& text) {
    if (text.isEmpty()) {
        if (m_warning) {
            plotLayout()->remove(m_warning); // deletes it
            plotLayout()->simplify();
            m_warning = nullptr;
        }
        return;
    }
    if (!m_warning) {
        plotLayout()->insertRow(1);
        QFont font = this->font();
        font.setBold(true);
        m_warning = new QCPTextElement(this, text, font);
        m_warning->setTextColor(QColor(0xc6, 0x28, 0x28));
        plotLayout()->addElement(1, 0, m_warning);
    }
    m_warning->setText(text);
}

QString ChartWidget::warning() {
    flush();
    return m_warning ? m_warning->text() : QString();
}

void ChartWidget::resetPlot() {
    setWarning({});
    clearPlottables();
    clearItems();
    legend->setVisible(false);
    legend->setFillOrder(QCPLegend::foRowsFirst);
    axisRect()->setBackground(Qt::NoBrush);
    for (auto* axis : {xAxis, yAxis}) {
        axis->setScaleType(QCPAxis::stLinear);
        axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        axis->setLabel({});
        axis->setVisible(true);
        axis->setTickLabelRotation(0);
        axis->setTickLabelFont(font());
        axis->grid()->setVisible(true);
    }
    m_message.clear();
    m_hasData = false;
}

void ChartWidget::flush() {
    if (!m_dirty) return;
    m_dirty = false;
    rebuild();
}

void ChartWidget::scheduleRebuild() {
    m_dirty = true;
    if (isVisible()) flush();
}

void ChartWidget::showEvent(QShowEvent* event) {
    flush();
    QCustomPlot::showEvent(event);
}

void ChartWidget::rememberHomeRange() {
    m_homeX = xAxis->range();
    m_homeY = yAxis->range();
}

void ChartWidget::showMessage(const QString& message) {
    m_dirty = false; // a message replaces whatever rebuild was pending
    resetPlot();
    m_message = message;
    auto* text = new QCPItemText(this);
    text->position->setType(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(0.5, 0.5);
    text->setPositionAlignment(Qt::AlignCenter);
    text->setText(message);
    text->setColor(Qt::darkGray);
    xAxis->setRange(0, 1);
    yAxis->setRange(0, 1);
    rememberHomeRange();
    replot(rpQueuedReplot);
}

bool ChartWidget::exportTo(const QString& path, QString* error, int width, int height) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok = false;
    flush(); // a chart on a hidden tab may have a rebuild pending
    // QCustomPlot renders exports itself; a replot first makes sure queued changes are in.
    replot(rpImmediateRefresh);
    if (suffix == QLatin1String("pdf"))
        ok =
            savePdf(path, width, height, QCP::epNoCosmetic, QStringLiteral("KernelSieve"), title());
    else if (suffix == QLatin1String("png"))
        ok = savePng(path, width, height);
    else {
        if (error)
            *error = tr("%1: unknown chart format '%2' (use .png or .pdf)").arg(path, suffix);
        return false;
    }
    if (!ok && error)
        *error = tr("%1: cannot write the chart (folder missing or not writable?)").arg(path);
    return ok;
}

void ChartWidget::contextMenuEvent(QContextMenuEvent* event) {
    QMenu menu(this);
    auto* png = menu.addAction(tr("Export as PNG\u2026"));
    auto* pdf = menu.addAction(tr("Export as PDF\u2026"));
    menu.addSeparator();
    auto* reset = menu.addAction(tr("Reset zoom"));
    QAction* chosen = menu.exec(event->globalPos());
    if (!chosen || (chosen != png && chosen != pdf && chosen != reset)) return;
    if (chosen == reset) {
        xAxis->setRange(m_homeX);
        yAxis->setRange(m_homeY);
        replot();
        return;
    }
    const bool isPdf = chosen == pdf;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"), objectName() + (isPdf ? ".pdf" : ".png"),
        isPdf ? tr("PDF (*.pdf)") : tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export chart"), error);
}
