module tb;
    reg        clk = 1'b0;
    reg        rst, start;
    reg  [7:0] data;
    wire       tx, busy;
    reg        m_tx, m_busy;
    reg  [7:0] m_byte;
    integer    m_idx, m_phase;
    integer errors, samples, cyc, seed;

    uart_tx dut (.clk(clk), .rst(rst), .start(start), .data(data), .tx(tx), .busy(busy));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 115200;
        rst = 1'b1; start = 1'b0; data = 8'h00; {m_tx, m_busy} = 2'bx;
        for (cyc = 0; cyc < 1500; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) begin m_tx = 1; m_busy = 0; end
            else if (!m_busy) begin
                if (start) begin m_busy = 1; m_tx = 0; m_byte = data; m_idx = 0; m_phase = 0; end
            end else if (m_phase != 3) m_phase = m_phase + 1;
            else begin
                m_phase = 0;
                m_idx = m_idx + 1;
                if (m_idx == 10) begin m_busy = 0; m_tx = 1; end
                else m_tx = (m_idx <= 8) ? m_byte[m_idx - 1] : 1'b1;
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 1000);
            // start is often held high so back-to-back frames happen; data keeps changing mid-frame
            start = (cyc % 200 < 120) ? 1'b1 : ($random(seed) % 8 == 0);
            data = $random(seed);
            #1;
            samples = samples + 1;
            if (tx !== m_tx) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=tx expected=%h got=%h", $time, m_tx, tx);
            end
            if (busy !== m_busy) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=busy expected=%h got=%h", $time, m_busy, busy);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
