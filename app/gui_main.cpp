// SPDX-License-Identifier: MIT
// kernelsieve: the Qt workbench. Thin on purpose: everything lives in ks_ui so tests can drive it.
//
//   kernelsieve [RESULTS.json | BENCH.json | SUITE_DIR] [--bench BENCH.json]

#include <mainwindow.h>

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelSieve"));
    QApplication::setApplicationName(QStringLiteral("kernelsieve"));
    QApplication::setApplicationDisplayName(QStringLiteral("KernelSieve"));
#ifdef KS_VERSION
    QApplication::setApplicationVersion(QStringLiteral(KS_VERSION));
#endif

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Workbench for auditing GPU-kernel benchmark tasks"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("path"),
        QStringLiteral("A results file, a kernel bench file or a suite folder"));
    QCommandLineOption bench(QStringLiteral("bench"),
                             QStringLiteral("Also open this kernel bench file"),
                             QStringLiteral("file"));
    parser.addOption(bench);
    parser.process(app);

    MainWindow window;
    window.show();
    window.startup(parser.positionalArguments().value(0));
    if (parser.isSet(bench)) window.openBench(parser.value(bench));
    return app.exec();
}
